//! The protocol's lines: the commands sent to an engine and the replies
//! read from it, in either protocol.

use morris::uci::GbgpPosition;
use morris::uci::gbgp::TWELVE_OPTION;
use morris::{Color, Move, Position, Rules, Variant};

/// The protocol an engine speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Protocol {
    /// morris's own, UCI-style (docs/PROTOCOL.md).
    #[default]
    Uci,
    /// GBGP, that of Nine Morris 3D and Muhle Intelligence: `gbgp`,
    /// `newgame`, `position pos <GBGP position>`, `score eval|win` from
    /// White's view, `bestmove none`.
    Gbgp,
}

impl Protocol {
    /// The line that opens a session.
    pub fn hello(self) -> &'static str {
        match self {
            Protocol::Uci => "uci",
            Protocol::Gbgp => "gbgp",
        }
    }

    /// The line that ends the engine's answer to [`Protocol::hello`].
    pub fn hello_ok(self) -> &'static str {
        match self {
            Protocol::Uci => "uciok",
            Protocol::Gbgp => "gbgpok",
        }
    }

    /// The line that begins a new game.
    pub fn new_game(self) -> &'static str {
        match self {
            Protocol::Uci => "ucinewgame",
            Protocol::Gbgp => "newgame",
        }
    }
}

/// The start of a `position` command up to `moves`, for a game from `fen`
/// (a position string; the start position if `None`) under `rules`.
///
/// # Errors
///
/// A bad position string, or one GBGP cannot write (a Lasker Morris side
/// slid with stones in hand), with why.
pub fn start_command(
    fen: Option<&str>,
    rules: Rules,
    protocol: Protocol,
) -> Result<String, String> {
    match (fen, protocol) {
        (None, _) => Ok("position startpos moves".to_owned()),
        (Some(fen), Protocol::Uci) => Ok(format!("position fen {fen} moves")),
        (Some(fen), Protocol::Gbgp) => {
            let pos = Position::from_fen(fen, rules).map_err(|e| e.to_string())?;
            let pos = GbgpPosition::from_position(&pos).map_err(|e| e.to_string())?;
            Ok(format!("position pos {pos} moves"))
        }
    }
}

/// The setoption pairs that put an engine under `rules`: every rule, its
/// default too, since an engine kept from an earlier game may have
/// another one set.
pub fn rules_options(rules: Rules) -> Vec<(String, String)> {
    vec![
        ("Variant".to_owned(), rules.variant.to_string()),
        ("Flying".to_owned(), rules.flying.to_string()),
        ("NMoveRule".to_owned(), rules.n_move_rule.to_string()),
        ("FullBoard".to_owned(), rules.full_board.to_string()),
    ]
}

/// The GBGP check option that chooses Twelve Men's Morris, at its value
/// for `rules`.
pub(crate) fn twelve_option(rules: Rules) -> (String, String) {
    let twelve = rules.variant == Variant::Twelve;
    (TWELVE_OPTION.to_owned(), twelve.to_string())
}

/// Whether option `name` at `value` is a rule at the protocol's default,
/// which an engine that does not list the option plays anyway.
fn is_default_rule(name: &str, value: &str) -> bool {
    let pair = (name.to_owned(), value.to_owned());
    rules_options(Rules::default()).contains(&pair) || twelve_option(Rules::default()) == pair
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
    /// it, or it is more than a rule the engine plays by default. A
    /// variant that a GBGP engine is told through its `TwelveMensMorris`
    /// (nine or twelve) is not sent as `Variant` too.
    pub fn takes(&self, name: &str, value: &str) -> bool {
        if self.lists_option(name) {
            return true;
        }
        let said_otherwise = name == "Variant"
            && self.lists_option(TWELVE_OPTION)
            && [Variant::Nine, Variant::Twelve]
                .iter()
                .any(|v| v.name() == value);
        !said_otherwise && !is_default_rule(name, value)
    }
}

/// The move of a `bestmove` line, or of an `info ... bestmove M` line as
/// some engines end a search (an `info string` is text, never a move);
/// `(none)`, or GBGP's `none`, when the engine has no move.
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
    /// Its score: for the side to move, or for White if `for_white`.
    pub score: Option<EngineScore>,
    /// Whether the score is from White's view (GBGP's `eval` and `win`)
    /// rather than the side to move's (`cp` and `mate`).
    pub for_white: bool,
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
        let for_white = at("score")
            .and_then(|i| tokens.get(i + 1))
            .is_some_and(|kind| matches!(*kind, "eval" | "win"));
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
            for_white,
            pv,
            wdl,
        })
    }

    /// The score for `side`, the side to move where the search began.
    pub fn score_for(&self, side: Color) -> Option<EngineScore> {
        let score = self.score?;
        Some(if self.for_white && side == Color::Black {
            match score {
                EngineScore::Centistones(cp) => EngineScore::Centistones(-cp),
                EngineScore::Mate(n) => EngineScore::Mate(-n),
            }
        } else {
            score
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

/// The score that follows `score` in an `info` line (`cp 25`, `mate -2`;
/// GBGP's `eval 3`, read as tenths of a stone as morris and Muhle
/// Intelligence write it, and `win -2`).
fn score_of(after_score: &[&str]) -> Option<EngineScore> {
    let value: i64 = after_score.get(1)?.parse().ok()?;
    match *after_score.first()? {
        "cp" => Some(EngineScore::Centistones(value)),
        "eval" => Some(EngineScore::Centistones(value.saturating_mul(10))),
        "mate" | "win" => Some(EngineScore::Mate(value)),
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
    fn gbgp_scores_are_from_whites_view() {
        let info = Info::parse("info depth 4 time 3 nodes 10 score eval -12 pv d6 d2").unwrap();
        assert_eq!(info.score, Some(EngineScore::Centistones(-120)));
        assert_eq!(
            info.score_for(Color::White),
            Some(EngineScore::Centistones(-120))
        );
        assert_eq!(
            info.score_for(Color::Black),
            Some(EngineScore::Centistones(120))
        );
        let win = Info::parse("info depth 4 score win -2 pv d6").unwrap();
        assert_eq!(win.score_for(Color::Black), Some(EngineScore::Mate(2)));
        let uci = Info::parse("info depth 4 score mate -2 pv d6").unwrap();
        assert_eq!(uci.score_for(Color::Black), Some(EngineScore::Mate(-2)));
        assert_eq!(best_move("bestmove none"), Some("none"));
    }

    #[test]
    fn a_gbgp_engine_is_told_the_variant_by_its_own_option() {
        let muhle = Handshake {
            listing: [
                "id name Muhle Intelligence",
                "option name TwelveMensMorris type check default false",
                "gbgpok",
            ]
            .map(String::from)
            .to_vec(),
            answer: Vec::new(),
        };
        assert!(muhle.takes("TwelveMensMorris", "true"));
        assert!(!muhle.takes("Variant", "twelve") && !muhle.takes("Variant", "nine"));
        assert!(muhle.takes("Variant", "lasker") && muhle.takes("NMoveRule", "50"));
        let plain = Handshake::default();
        assert!(!plain.takes("TwelveMensMorris", "false"));
    }

    #[test]
    fn gbgp_starts_are_gbgp_positions() {
        let rules = Rules::default();
        let fen = ".../.W./.../.W..../.../.B./... b 7 8 3 2";
        assert_eq!(
            start_command(Some(fen), rules, Protocol::Gbgp).as_deref(),
            Ok("position pos b:wd6,b4:bd2:2 moves")
        );
        assert_eq!(
            start_command(Some(fen), rules, Protocol::Uci),
            Ok(format!("position fen {fen} moves"))
        );
        assert_eq!(
            start_command(None, rules, Protocol::Gbgp).as_deref(),
            Ok("position startpos moves")
        );
        let lasker = Rules::new(Variant::Lasker);
        let slid = ".../.../.../....../.../.../W.B b 9 9 0 2";
        assert!(start_command(Some(slid), lasker, Protocol::Gbgp).is_err());
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
