//! The command line, in the conventions of cutechess-cli and fastchess:
//! `-engine cmd=... name=... [arg=...] [option.<Name>=<value>]`, `-each`
//! for what all engines share, and the match settings.

use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::time::Duration;

use morris::{Rules, Variant};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

use super::game::GameSettings;
use super::openings::{Opening, default_openings, parse_openings, random_openings, read_openings};
use super::stats::Sprt;
use super::tournament::{MatchConfig, PgnOut, Tournament};
use crate::client::{EngineConfig, MoveLimit, Protocol};

/// The usage text.
pub const USAGE: &str = "\
usage: morris-arena -engine cmd=<program> [name=<name>] [dir=<folder>] [arg=<argument>]... [proto=uci|gbgp]
                            [notation=compound|split] [timemargin=<ms>]
                            [option.<Name>=<value>]... [tc=... | st=<s>] [depth=<n>] [nodes=<n>]
                    -engine ... [-engine ...]
                    [-each <keys for every engine>]
                    [-rounds N] [-games N] [-repeat] [-concurrency N] [-recover]
                    [-openings file=<path> [order=sequential|random] [seed=<s>] | -openings random plies=<n>[-<m>] seed=<s>]
                    [-sprt elo0=<e> elo1=<e> alpha=<a> beta=<b>] [-pgnout <file> [min]]
                    [-ratinginterval N] [-tournament round-robin|gauntlet] [-variant nine|twelve|lasker]
                    [-flying true|false] [-nmoverule N] [-fullboard draw|whiteloses]
                    [-timemargin <ms>] [-hangtimeout <s>]
       morris-arena --check <file>   (replay game records, report the first illegal move)
Times in seconds: tc=10+0.1 is 10 s plus 0.1 s a move, tc=40/60 is 60 s for every
40 moves, tc=inf is no clock (give depth= or nodes=); st=0.2 is 0.2 s a move.
Each opening is played twice, colours swapped (-games 2, the default); the two games
make a pair, and the Elo over pairs and the SPRT count pairs. Random openings of
plies=4-6 are 4 to 6 moves long. notation=split sends a mill-closing turn to that
engine as two tokens (g1 xb4), for engines that read split notation only.
proto=gbgp speaks GBGP to that engine (Muhle Intelligence, morris itself).";

fn seconds(text: &str, what: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("{what}: '{text}' is not a number of seconds"))
}

fn whole<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("{what}: '{text}' is not a whole number"))
}

/// Applies one `key=value` of `-engine` or `-each` to an engine.
fn apply_engine_key(engine: &mut EngineConfig, token: &str) -> Result<(), String> {
    let (key, value) = token
        .split_once('=')
        .ok_or_else(|| format!("'{token}' is not key=value"))?;
    match key {
        "cmd" => engine.cmd = value.to_owned(),
        "name" => engine.name = value.to_owned(),
        "arg" => engine.args.push(value.to_owned()),
        "dir" => engine.dir = Some(PathBuf::from(value)),
        "proto" if value == "uci" => engine.protocol = Protocol::Uci,
        "proto" if value == "gbgp" => engine.protocol = Protocol::Gbgp,
        "proto" => return Err(format!("proto={value}: uci or gbgp")),
        "notation" if value == "split" => engine.split_notation = true,
        "notation" if value == "compound" => engine.split_notation = false,
        "notation" => return Err(format!("notation={value}: compound or split")),
        "tc" if value == "inf" => {
            if matches!(
                engine.limit,
                Some(MoveLimit::Clock { .. } | MoveLimit::MoveTime(_))
            ) {
                engine.limit = None;
            }
        }
        "tc" => {
            let (moves, rest) = match value.split_once('/') {
                Some((moves, rest)) => (Some(whole(moves, "tc moves")?), rest),
                None => (None, value),
            };
            let (base, increment) = rest.split_once('+').unwrap_or((rest, "0"));
            if moves == Some(0) {
                return Err("tc: a control of 0 moves".to_owned());
            }
            engine.limit = Some(MoveLimit::Clock {
                base: seconds(base, "tc")?,
                increment: seconds(increment, "tc")?,
                moves,
            });
        }
        "timemargin" => {
            engine.time_margin = Some(Duration::from_millis(whole(value, "timemargin")?))
        }
        "st" => engine.limit = Some(MoveLimit::MoveTime(seconds(value, "st")?)),
        "depth" => engine.limit = Some(MoveLimit::Depth(whole(value, "depth")?)),
        "nodes" => engine.limit = Some(MoveLimit::Nodes(whole(value, "nodes")?)),
        _ => match key.strip_prefix("option.") {
            Some(name) if !name.is_empty() => {
                engine.options.retain(|(n, _)| n != name);
                engine.options.push((name.to_owned(), value.to_owned()));
            }
            _ => return Err(format!("unknown engine key '{key}'")),
        },
    }
    Ok(())
}

/// Reads the command line (without the program name).
///
/// # Errors
///
/// What is wrong, as a sentence.
pub fn parse_args(args: &[String]) -> Result<MatchConfig, String> {
    let mut engines: Vec<Vec<&str>> = Vec::new();
    let mut each: Vec<&str> = Vec::new();
    let mut rounds: usize = 1;
    let mut games: usize = 2;
    let mut concurrency: usize = 1;
    let mut openings_spec: Vec<&str> = Vec::new();
    let mut sprt = None;
    let mut pgn_out = None;
    let mut rating_interval = None;
    let mut tournament = Tournament::RoundRobin;
    let mut rules = Rules::default();
    let mut time_margin = Duration::from_millis(100);
    let mut hang_timeout = Duration::from_secs(60);
    let mut i = 0;
    let values = |i: &mut usize| -> Vec<&str> {
        let mut taken = Vec::new();
        while let Some(token) = args.get(*i + 1).filter(|t| !t.starts_with('-')) {
            taken.push(token.as_str());
            *i += 1;
        }
        taken
    };
    while i < args.len() {
        let flag = args[i].as_str();
        let one = |i: &mut usize| -> Result<&str, String> {
            *i += 1;
            args.get(*i)
                .map(String::as_str)
                .ok_or_else(|| format!("{flag}: missing value"))
        };
        match flag {
            "-engine" => engines.push(values(&mut i)),
            "-each" => each.extend(values(&mut i)),
            "-rounds" => rounds = whole(one(&mut i)?, "-rounds")?,
            "-games" => games = whole(one(&mut i)?, "-games")?,
            // Every game starts fresh engines, so a crash costs one game
            // and the match goes on: recovery is what the runner always does.
            "-repeat" | "-recover" => {}
            "-concurrency" => concurrency = whole(one(&mut i)?, "-concurrency")?,
            "-openings" => openings_spec = values(&mut i),
            "-pgnout" => pgn_out = Some(parse_pgn_out(&values(&mut i))?),
            "-ratinginterval" => {
                rating_interval = Some(whole(one(&mut i)?, "-ratinginterval")?).filter(|&n| n > 0)
            }
            "-tournament" => {
                tournament = match one(&mut i)? {
                    "round-robin" => Tournament::RoundRobin,
                    "gauntlet" => Tournament::Gauntlet,
                    other => {
                        return Err(format!(
                            "-tournament: '{other}' is not round-robin or gauntlet"
                        ));
                    }
                }
            }
            "-variant" => {
                let variant: Variant =
                    one(&mut i)?.parse().map_err(|e| format!("-variant: {e}"))?;
                rules = Rules { variant, ..rules };
            }
            "-flying" => {
                rules.flying = one(&mut i)?
                    .parse()
                    .map_err(|_| "-flying: true or false".to_owned())?
            }
            "-nmoverule" => rules.n_move_rule = whole(one(&mut i)?, "-nmoverule")?,
            "-fullboard" => {
                rules.full_board = one(&mut i)?
                    .parse()
                    .map_err(|e| format!("-fullboard: {e}"))?
            }
            "-timemargin" => {
                time_margin = Duration::from_millis(whole(one(&mut i)?, "-timemargin")?)
            }
            "-hangtimeout" => hang_timeout = seconds(one(&mut i)?, "-hangtimeout")?,
            "-sprt" => sprt = Some(parse_sprt(&values(&mut i))?),
            "-help" | "--help" | "-h" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown option '{other}'\n{USAGE}")),
        }
        i += 1;
    }
    if engines.len() < 2 {
        return Err(format!("at least two -engine are needed\n{USAGE}"));
    }
    if games == 0 || rounds == 0 || concurrency == 0 {
        return Err("-games, -rounds and -concurrency must be at least 1".to_owned());
    }
    let needed = rounds * games.div_ceil(2);
    Ok(MatchConfig {
        engines: engine_configs(&engines, &each)?,
        rounds,
        games,
        concurrency,
        openings: openings(&openings_spec, rules, needed)?,
        tournament,
        sprt,
        pgn_out,
        rating_interval,
        settings: GameSettings {
            rules,
            time_margin,
            hang_timeout,
        },
    })
}

/// The engines of the `-engine` groups, `-each` applied first; names made
/// unique.
fn engine_configs(engines: &[Vec<&str>], each: &[&str]) -> Result<Vec<EngineConfig>, String> {
    let mut configs = Vec::new();
    for (number, keys) in (1..).zip(engines) {
        let mut engine = EngineConfig::default();
        for token in each.iter().chain(keys) {
            apply_engine_key(&mut engine, token).map_err(|e| format!("-engine {number}: {e}"))?;
        }
        if engine.cmd.is_empty() {
            return Err(format!("-engine {number}: cmd=<program> is missing"));
        }
        if engine.limit.is_none() {
            return Err(format!(
                "-engine {number}: no limit (give tc=, st=, depth= or nodes=, here or in -each)"
            ));
        }
        if engine.split_notation && engine.protocol == Protocol::Gbgp {
            return Err(format!(
                "-engine {number}: notation=split with proto=gbgp (a GBGP turn is one token)"
            ));
        }
        if engine.name.is_empty() {
            engine.name = format!("engine{number}");
        }
        configs.push(engine);
    }
    for i in 0..configs.len() {
        if configs[..i].iter().any(|c| c.name == configs[i].name) {
            let name = configs[i].name.clone();
            configs[i].name = format!("{name}-{}", i + 1);
        }
    }
    Ok(configs)
}

/// `-pgnout <file> [min]`.
fn parse_pgn_out(values: &[&str]) -> Result<PgnOut, String> {
    match values {
        [path] => Ok(PgnOut {
            path: PathBuf::from(path),
            minimal: false,
        }),
        [path, "min"] => Ok(PgnOut {
            path: PathBuf::from(path),
            minimal: true,
        }),
        _ => Err("-pgnout: <file> [min]".to_owned()),
    }
}

/// `-sprt elo0=<e> elo1=<e> alpha=<a> beta=<b>`, each key optional.
fn parse_sprt(values: &[&str]) -> Result<Sprt, String> {
    let mut test = Sprt {
        elo0: 0.0,
        elo1: 5.0,
        alpha: 0.05,
        beta: 0.05,
    };
    for token in values {
        let (key, value) = token
            .split_once('=')
            .ok_or_else(|| format!("-sprt: '{token}' is not key=value"))?;
        let number: f64 = value
            .parse()
            .map_err(|_| format!("-sprt: '{value}' is not a number"))?;
        match key {
            "elo0" => test.elo0 = number,
            "elo1" => test.elo1 = number,
            "alpha" => test.alpha = number,
            "beta" => test.beta = number,
            _ => return Err(format!("-sprt: unknown key '{key}'")),
        }
    }
    let rates_ok = |p: f64| p > 0.0 && p < 0.5;
    if test.elo1 <= test.elo0 || !rates_ok(test.alpha) || !rates_ok(test.beta) {
        return Err("-sprt: needs elo0 < elo1 and 0 < alpha, beta < 0.5".to_owned());
    }
    Ok(test)
}

/// The openings of `-openings` (the shipped ones when it is not given);
/// random ones are drawn `needed` at a time.
/// `4` or `4-6`: the lengths of random openings.
fn ply_range(text: &str) -> Result<RangeInclusive<usize>, String> {
    let (low, high) = text.split_once('-').unwrap_or((text, text));
    let (low, high) = (
        whole(low, "-openings plies")?,
        whole(high, "-openings plies")?,
    );
    if low > high {
        return Err(format!("-openings plies={text}: the range is empty"));
    }
    Ok(low..=high)
}

fn openings(spec: &[&str], rules: Rules, needed: usize) -> Result<Vec<Opening>, String> {
    let keys = |tokens: &[&str]| -> Result<Vec<(String, String)>, String> {
        tokens
            .iter()
            .map(|token| {
                token
                    .split_once('=')
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .ok_or_else(|| format!("-openings: '{token}' is not key=value"))
            })
            .collect()
    };
    match spec {
        [] => parse_openings(default_openings(rules.variant), rules),
        ["random", rest @ ..] => {
            let (mut plies, mut seed) = (4..=4, 1);
            for (key, value) in keys(rest)? {
                match key.as_str() {
                    "plies" => plies = ply_range(&value)?,
                    "seed" => seed = whole(&value, "-openings seed")?,
                    _ => return Err(format!("-openings: unknown key '{key}'")),
                }
            }
            Ok(random_openings(needed, plies, seed, rules))
        }
        tokens => {
            let (mut file, mut random_order, mut seed) = (None, false, 1);
            for (key, value) in keys(tokens)? {
                match (key.as_str(), value.as_str()) {
                    ("file", path) => file = Some(PathBuf::from(path)),
                    ("order", "random") => random_order = true,
                    ("order", "sequential") => random_order = false,
                    ("seed", value) => seed = whole(value, "-openings seed")?,
                    // The one format there is: position strings and moves.
                    ("format", _) => {}
                    _ => return Err(format!("-openings: unknown key '{key}={value}'")),
                }
            }
            let file = file.ok_or("-openings: file=<path> or random plies=<n> seed=<s>")?;
            let mut openings = read_openings(&file, rules)?;
            if random_order {
                openings.shuffle(&mut StdRng::seed_from_u64(seed));
            }
            Ok(openings)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn engines_each_and_settings() {
        let config = parse_args(&args(
            "-engine cmd=morris name=deep option.Hash=32 -engine cmd=morris arg=uci depth=1 \
             -each st=0.05 option.Threads=1 -rounds 3 -games 2 -repeat -concurrency 2 \
             -openings random plies=6 seed=9 -sprt elo0=0 elo1=10 -pgnout out.pgn",
        ))
        .unwrap();
        assert_eq!(config.engines.len(), 2);
        assert_eq!(config.engines[0].name, "deep");
        assert_eq!(
            config.engines[0].limit,
            Some(MoveLimit::MoveTime(Duration::from_millis(50)))
        );
        assert_eq!(config.engines[1].limit, Some(MoveLimit::Depth(1)));
        assert_eq!(config.engines[1].args, ["uci"]);
        assert!(
            config.engines[0]
                .options
                .contains(&("Hash".to_owned(), "32".to_owned()))
        );
        assert!(
            config.engines[1]
                .options
                .contains(&("Threads".to_owned(), "1".to_owned()))
        );
        assert_eq!(config.openings.len(), 3);
        assert_eq!((config.rounds, config.games, config.concurrency), (3, 2, 2));
        assert_eq!(config.sprt.map(|s| s.elo1), Some(10.0));
    }

    #[test]
    fn clocks_and_mistakes() {
        let config = parse_args(&args("-engine cmd=a -engine cmd=b -each tc=10+0.1")).unwrap();
        assert_eq!(
            config.engines[0].limit,
            Some(MoveLimit::Clock {
                base: Duration::from_secs(10),
                increment: Duration::from_millis(100),
                moves: None,
            })
        );
        assert_eq!(config.engines[1].name, "engine2");
        assert!(parse_args(&args("-engine cmd=a")).is_err());
        assert!(parse_args(&args("-engine name=x -engine cmd=b")).is_err());
        assert!(parse_args(&args("-engine cmd=a -engine cmd=b -each tc=ten")).is_err());
        assert!(parse_args(&args("-engine cmd=a -engine cmd=b -bogus")).is_err());
        assert!(parse_args(&args("-engine cmd=a -engine cmd=b -sprt elo0=5 elo1=0")).is_err());
    }

    #[test]
    fn what_cutechess_and_fastchess_users_type() {
        let config = parse_args(&args(
            "-engine cmd=a proto=uci dir=/tmp tc=40/60 -engine cmd=b tc=inf depth=6 timemargin=0 \
             -each tc=1+0.1 -recover -ratinginterval 10 -pgnout out.pgn min -timemargin 5000",
        ))
        .unwrap();
        assert_eq!(config.engines[0].dir, Some(PathBuf::from("/tmp")));
        // An engine's own margin overrules the match's.
        assert_eq!(config.settings.time_margin, Duration::from_secs(5));
        assert_eq!(config.engines[0].time_margin, None);
        assert_eq!(config.engines[1].time_margin, Some(Duration::ZERO));
        assert_eq!(
            config.engines[0].limit,
            Some(MoveLimit::Clock {
                base: Duration::from_secs(60),
                increment: Duration::ZERO,
                moves: Some(40),
            })
        );
        assert_eq!(config.engines[0].protocol, Protocol::Uci);
        let gbgp = parse_args(&args("-engine cmd=a proto=gbgp st=1 -engine cmd=b st=1")).unwrap();
        assert_eq!(gbgp.engines[0].protocol, Protocol::Gbgp);
        assert_eq!(gbgp.engines[1].protocol, Protocol::Uci);
        // tc=inf drops the clock of -each; the depth remains.
        assert_eq!(config.engines[1].limit, Some(MoveLimit::Depth(6)));
        assert_eq!(config.rating_interval, Some(10));
        assert_eq!(
            config.pgn_out,
            Some(PgnOut {
                path: PathBuf::from("out.pgn"),
                minimal: true
            })
        );
        let refused = [
            "-engine cmd=a proto=xboard st=1 -engine cmd=b st=1",
            "-engine cmd=a st=1 -engine cmd=b st=1 -concurrency 0",
            "-engine cmd=a st=1 -engine cmd=b st=1 -rounds 0",
            "-engine cmd=a -engine cmd=b",
            "-engine cmd=a tc=inf -engine cmd=b st=1",
            "-engine cmd=a tc=0/10 -engine cmd=b st=1",
            "-engine cmd=a st=1 timemargin=0.5 -engine cmd=b st=1",
            "-engine cmd=a proto=gbgp notation=split st=1 -engine cmd=b st=1",
        ];
        for line in refused {
            assert!(parse_args(&args(line)).is_err(), "{line}");
        }
    }

    #[test]
    fn an_opening_file_can_be_played_in_random_order() {
        let path = std::env::temp_dir().join(format!("arena-order-{}.txt", std::process::id()));
        let lines: Vec<String> = ["d6", "d2", "b4", "f4", "b6", "f6", "a7", "g7"]
            .iter()
            .map(|m| format!("{m}\n"))
            .collect();
        std::fs::write(&path, lines.concat()).unwrap();
        let read = |order: &str| {
            let line = format!(
                "-engine cmd=a st=1 -engine cmd=b st=1 -openings file={} {order}",
                path.display()
            );
            parse_args(&args(&line)).unwrap().openings
        };
        let sequential = read("order=sequential");
        let shuffled = read("order=random seed=3");
        assert_eq!(read("order=random seed=3"), shuffled);
        assert_ne!(sequential, shuffled);
        let mut sorted = shuffled.clone();
        sorted.sort_by_key(|o| o.moves[0].to.index());
        let mut expected = sequential.clone();
        expected.sort_by_key(|o| o.moves[0].to.index());
        assert_eq!(sorted, expected);
        let _ = std::fs::remove_file(path);
    }
}
