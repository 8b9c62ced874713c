//! The protocol's lines: the commands sent to an engine and the replies
//! read from it.

use morris::{Move, Rules};

/// The setoption pairs that put an engine under `rules`: every rule, its
/// default too, since an engine kept from an earlier game may have
/// another one set.
pub fn rules_options(rules: Rules) -> Vec<(String, String)> {
    vec![
        ("Variant".to_owned(), rules.variant.to_string()),
        ("Flying".to_owned(), rules.flying.to_string()),
        ("NMoveRule".to_owned(), rules.n_move_rule.to_string()),
    ]
}

/// Whether option `name` at `value` is a rule at the protocol's default,
/// which an engine that does not list the option plays anyway.
fn is_default_rule(name: &str, value: &str) -> bool {
    rules_options(Rules::default()).contains(&(name.to_owned(), value.to_owned()))
}

/// The `position` command for the moves so far, each turn written as one
/// token, or as the action and `x<point>` for an engine of split notation.
pub fn position_command(start: &str, moves: &[Move], split: bool) -> String {
    let mut command = start.to_owned();
    for &mv in moves {
        match mv.removal {
            Some(removal) if split => {
                let action = Move {
                    removal: None,
                    ..mv
                };
                command.push_str(&format!(" {action} x{removal}"));
            }
            _ => command.push_str(&format!(" {mv}")),
        }
    }
    command
}

/// What an engine said from `uci` until it was ready.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Handshake {
    /// Its reply to `uci`, up to `uciok`.
    pub listing: Vec<String>,
    /// Its answer to the options, up to `readyok`.
    pub answer: Vec<String>,
}

impl Handshake {
    /// The name it gave (`id name`).
    pub fn name(&self) -> Option<String> {
        self.listing
            .iter()
            .find_map(|l| l.strip_prefix("id name "))
            .map(|name| name.trim().to_owned())
    }

    /// Whether it listed an option of this name (in any case).
    pub fn lists_option(&self, name: &str) -> bool {
        self.listing.iter().any(|line| {
            line.trim()
                .strip_prefix("option name ")
                .and_then(|rest| rest.split(" type ").next())
                .is_some_and(|listed| listed.eq_ignore_ascii_case(name))
        })
    }

    /// Whether option `name` at `value` is to be sent: the engine lists
    /// it, or it is more than a rule the engine plays by default.
    pub fn takes(&self, name: &str, value: &str) -> bool {
        self.lists_option(name) || !is_default_rule(name, value)
    }
}

/// The move of a `bestmove` line, or of an `info ... bestmove M` line as
/// some engines end a search (an `info string` is text, never a move).
pub fn best_move(line: &str) -> Option<&str> {
    let mut tokens = line.split_whitespace();
    match tokens.next()? {
        "bestmove" => tokens.next(),
        "info" if line.split_whitespace().nth(1) != Some("string") => {
            tokens.skip_while(|&t| t != "bestmove").nth(1)
        }
        _ => None,
    }
}

/// What an `info` line reports of a search: each part the line gives.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    /// Depth of the iteration.
    pub depth: Option<u32>,
    /// Its score for the side to move.
    pub score: Option<EngineScore>,
    /// Its principal variation.
    pub pv: Vec<String>,
    /// Its chances for the side to move, in thousandths: win, draw, loss
    /// (`wdl`, with `UCI_ShowWDL`).
    pub wdl: Option<[u32; 3]>,
}

impl Info {
    /// The report of an `info` line, if it is one.
    ///
    /// Other lines, a bare `info` and an `info string` (text) report nothing.
    pub fn parse(line: &str) -> Option<Info> {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if tokens.first() != Some(&"info") || tokens.len() < 2 || tokens[1] == "string" {
            return None;
        }
        let at = |key: &str| tokens.iter().position(|&t| t == key);
        let depth = at("depth").and_then(|i| tokens.get(i + 1)?.parse().ok());
        let score = at("score").and_then(|i| score_of(&tokens[i + 1..]));
        let pv = at("pv")
            .map(|i| {
                tokens[i + 1..]
                    .iter()
                    .take_while(|t| !matches!(**t, "bestmove" | "ponder"))
                    .map(|t| (*t).to_owned())
                    .collect()
            })
            .unwrap_or_default();
        let wdl = at("wdl").and_then(|i| {
            let mut chances = tokens.get(i + 1..i + 4)?.iter().map(|t| t.parse().ok());
            Some([chances.next()??, chances.next()??, chances.next()??])
        });
        Some(Info {
            depth,
            score,
            pv,
            wdl,
        })
    }
}

/// A score as an engine reports it, for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineScore {
    /// Hundredths of a stone (`cp`).
    Centistones(i64),
    /// A win in this many moves, or a loss if negative (`mate`).
    Mate(i64),
}

impl std::fmt::Display for EngineScore {
    /// As cutechess writes it: `+0.25` (stones), `+M3` (a win in 3), `-M2`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            EngineScore::Centistones(cp) => write!(f, "{:+.2}", cp as f64 / 100.0),
            EngineScore::Mate(n) if n < 0 => write!(f, "-M{}", -n),
            EngineScore::Mate(n) => write!(f, "+M{n}"),
        }
    }
}

/// The score that follows `score` in an `info` line (`cp 25`, `mate -2`).
fn score_of(after_score: &[&str]) -> Option<EngineScore> {
    let value: i64 = after_score.get(1)?.parse().ok()?;
    match *after_score.first()? {
        "cp" => Some(EngineScore::Centistones(value)),
        "mate" => Some(EngineScore::Mate(value)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_give_depth_score_and_line() {
        let info =
            Info::parse("info depth 9 seldepth 12 score cp -25 nodes 5 pv d6 f4 bestmove d6")
                .expect("an info line");
        assert_eq!(info.depth, Some(9));
        assert_eq!(info.score, Some(EngineScore::Centistones(-25)));
        assert_eq!(info.pv, ["d6", "f4"]);
        let score = |score: &str| {
            Info::parse(&format!("info depth 3 score {score} pv a1"))
                .and_then(|info| info.score)
                .map(|score| score.to_string())
        };
        assert_eq!(score("cp 130").as_deref(), Some("+1.30"));
        assert_eq!(score("mate 3").as_deref(), Some("+M3"));
        assert_eq!(score("mate -2").as_deref(), Some("-M2"));
        let searching = Info::parse("info depth 9 currmove d6 currmovenumber 1");
        assert_eq!(searching.and_then(|info| info.score), None);
        assert_eq!(Info::parse("info string hello depth 3 score cp 5"), None);
        assert_eq!(Info::parse("info"), None);
        assert_eq!(Info::parse("bestmove d6"), None);
        let chances = |line: &str| Info::parse(line).and_then(|info| info.wdl);
        assert_eq!(
            chances("info depth 5 score cp 40 wdl 310 600 90 pv a1"),
            Some([310, 600, 90])
        );
        assert_eq!(chances("info depth 5 score cp 40 wdl 310 600"), None);
        assert_eq!(chances("info depth 5 score cp 40 pv a1"), None);
    }

    #[test]
    fn a_best_move_ends_a_bestmove_line_or_an_info_line() {
        assert_eq!(best_move("bestmove d6 ponder d2"), Some("d6"));
        assert_eq!(
            best_move("info depth 10 score cp 3 nodes 190529 bestmove g1"),
            Some("g1")
        );
        assert_eq!(best_move("info depth 10 score cp 3 pv d6 d2"), None);
        assert_eq!(best_move("info string the bestmove was d6"), None);
        assert_eq!(best_move("readyok"), None);
    }

    #[test]
    fn the_handshake_gives_the_name_and_the_options_listed() {
        let handshake = Handshake {
            listing: [
                "id name morris 0.1",
                "option name Hash type spin default 16 min 1 max 1024",
                "option name Skill Level type spin default 20 min 0 max 20",
                "uciok",
            ]
            .map(String::from)
            .to_vec(),
            answer: vec!["readyok".to_owned()],
        };
        assert_eq!(handshake.name().as_deref(), Some("morris 0.1"));
        assert!(handshake.lists_option("hash") && handshake.lists_option("Skill Level"));
        assert!(!handshake.lists_option("Contempt"));
        // A rule the engine does not list is sent only if it is not the
        // default (the engine then plays it anyway); other options always.
        assert!(!handshake.takes("Variant", "nine") && !handshake.takes("Flying", "true"));
        assert!(handshake.takes("Variant", "twelve") && handshake.takes("NMoveRule", "0"));
        assert!(handshake.takes("Contempt", "0") && handshake.takes("Hash", "64"));
    }

    #[test]
    fn split_notation_writes_the_removal_as_its_own_token() {
        let moves: Vec<Move> = ["a1", "b2", "d1", "b4", "g1xb2", "a1-a4"]
            .iter()
            .map(|t| t.parse().unwrap())
            .collect();
        let start = "position startpos moves";
        assert_eq!(
            position_command(start, &moves, false),
            "position startpos moves a1 b2 d1 b4 g1xb2 a1-a4"
        );
        assert_eq!(
            position_command(start, &moves, true),
            "position startpos moves a1 b2 d1 b4 g1 xb2 a1-a4"
        );
    }
}
