//! The command line, in the conventions of cutechess-cli and fastchess:
//! `-engine cmd=... name=... [arg=...] [option.<Name>=<value>]`, `-each`
//! for what all engines share, and the match settings.

use std::path::PathBuf;
use std::time::Duration;

use morris::{Rules, Variant};

use super::engine::{EngineConfig, MoveLimit};
use super::game::GameSettings;
use super::openings::{DEFAULT_OPENINGS, parse_openings, random_openings, read_openings};
use super::stats::Sprt;
use super::tournament::{MatchConfig, Tournament};

/// The usage text.
pub const USAGE: &str = "\
usage: morris-arena -engine cmd=<program> [name=<name>] [arg=<argument>]... [option.<Name>=<value>]...
                    -engine ... [-engine ...]
                    [-each <the same keys, for every engine; also tc=<base>+<inc> | st=<s> | depth=<n> | nodes=<n>>]
                    [-rounds N] [-games N] [-repeat] [-concurrency N]
                    [-openings file=<path> | -openings random plies=<n> seed=<s>]
                    [-sprt elo0=<e> elo1=<e> alpha=<a> beta=<b>] [-pgnout <file>]
                    [-tournament round-robin|gauntlet] [-variant nine|twelve|lasker]
                    [-flying true|false] [-nmoverule N] [-timemargin <ms>] [-hangtimeout <s>]
Times: tc in seconds (10+0.1 is 10 s plus 0.1 s a move), st in seconds a move.
Each opening is played twice, colours swapped (-games 2, the default).";

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
        "tc" => {
            let (base, increment) = value.split_once('+').unwrap_or((value, "0"));
            engine.limit = Some(MoveLimit::Clock {
                base: seconds(base, "tc")?,
                increment: seconds(increment, "tc")?,
            });
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
            "-repeat" => {}
            "-concurrency" => concurrency = whole(one(&mut i)?, "-concurrency")?,
            "-openings" => openings_spec = values(&mut i),
            "-pgnout" => pgn_out = Some(PathBuf::from(one(&mut i)?)),
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
            "-timemargin" => {
                time_margin = Duration::from_millis(whole(one(&mut i)?, "-timemargin")?)
            }
            "-hangtimeout" => hang_timeout = seconds(one(&mut i)?, "-hangtimeout")?,
            "-sprt" => {
                let mut test = Sprt {
                    elo0: 0.0,
                    elo1: 5.0,
                    alpha: 0.05,
                    beta: 0.05,
                };
                for token in values(&mut i) {
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
                sprt = Some(test);
            }
            "-help" | "--help" | "-h" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown option '{other}'\n{USAGE}")),
        }
        i += 1;
    }
    if engines.len() < 2 {
        return Err(format!("at least two -engine are needed\n{USAGE}"));
    }
    if games == 0 || rounds == 0 {
        return Err("-games and -rounds must be at least 1".to_owned());
    }
    let mut configs = Vec::new();
    for (number, keys) in (1..).zip(&engines) {
        let mut engine = EngineConfig::default();
        for token in each.iter().chain(keys) {
            apply_engine_key(&mut engine, token).map_err(|e| format!("-engine {number}: {e}"))?;
        }
        if engine.cmd.is_empty() {
            return Err(format!("-engine {number}: cmd=<program> is missing"));
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
    let openings = match openings_spec.as_slice() {
        [] if rules.variant == Variant::Nine => parse_openings(DEFAULT_OPENINGS, rules)?,
        [] => random_openings(50, 4, 1, rules),
        [file] if file.starts_with("file=") => {
            read_openings(file["file=".len()..].as_ref(), rules)?
        }
        ["random", keys @ ..] => {
            let (mut plies, mut seed) = (4, 1);
            for token in keys {
                match token.split_once('=') {
                    Some(("plies", v)) => plies = whole(v, "-openings plies")?,
                    Some(("seed", v)) => seed = whole(v, "-openings seed")?,
                    _ => return Err(format!("-openings: unknown key '{token}'")),
                }
            }
            let needed = rounds * games.div_ceil(2);
            random_openings(needed, plies, seed, rules)
        }
        _ => return Err("-openings: file=<path> or random plies=<n> seed=<s>".to_owned()),
    };
    Ok(MatchConfig {
        engines: configs,
        rounds,
        games,
        concurrency,
        openings,
        tournament,
        sprt,
        pgn_out,
        settings: GameSettings {
            rules,
            time_margin,
            hang_timeout,
        },
    })
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
                increment: Duration::from_millis(100)
            })
        );
        assert_eq!(config.engines[1].name, "engine2");
        assert!(parse_args(&args("-engine cmd=a")).is_err());
        assert!(parse_args(&args("-engine name=x -engine cmd=b")).is_err());
        assert!(parse_args(&args("-engine cmd=a -engine cmd=b -each tc=ten")).is_err());
        assert!(parse_args(&args("-engine cmd=a -engine cmd=b -bogus")).is_err());
        assert!(parse_args(&args("-engine cmd=a -engine cmd=b -sprt elo0=5 elo1=0")).is_err());
    }
}
