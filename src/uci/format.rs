//! What the engine says: `info` and `bestmove` lines, the `d` board, and
//! error text fit for one line.

use std::time::Duration;

use crate::board::{Color, Move};
use crate::engine::{BestMove, Engine, EngineOption, MoveNotation, OptionKind, OptionNote};
use crate::search::eval::{Breakdown, PHASE_SCALE, Term};
use crate::search::{BenchReport, Bound, DB_WIN, Score, SearchInfo};
use crate::solution::DbOutcome;

/// The `info` line of a search report, with win/draw/loss chances if
/// `show_wdl`.
pub fn format_info(info: &SearchInfo, show_wdl: bool) -> String {
    let mut score = match info.score {
        // A draw the databases know is a draw, whatever the evaluation
        // that chose among drawing moves makes of it.
        _ if info.exact == Some(DbOutcome::Draw) => "cp 0".to_owned(),
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Db { win, plies } => format!("cp {}", if win { 1 } else { -1 } * (DB_WIN - plies)),
        Score::Mate(n) => format!("mate {n}"),
    };
    score.push_str(match info.bound {
        Bound::Exact => "",
        Bound::Lower => " lowerbound",
        Bound::Upper => " upperbound",
    });
    if show_wdl {
        let [win, draw, loss] = match info.exact {
            Some(DbOutcome::Win) => [1000, 0, 0],
            Some(DbOutcome::Draw) => [0, 1000, 0],
            Some(DbOutcome::Loss) => [0, 0, 1000],
            None => info.score.wdl(),
        };
        score.push_str(&format!(" wdl {win} {draw} {loss}"));
    }
    let millis = info.time.as_millis();
    let nps = nodes_per_second(info.nodes, info.time);
    let pv: Vec<String> = info.pv.iter().map(Move::to_string).collect();
    format!(
        "info depth {} seldepth {} multipv {} score {score} nodes {} nps {nps} hashfull {} dbhits {} time {millis} pv {}",
        info.depth,
        info.seldepth,
        info.multipv,
        info.nodes,
        info.hashfull,
        info.dbhits,
        pv.join(" ")
    )
}

/// The counts of a perft divide, a line a move (`d6: 552`), each line
/// ended.
pub fn format_divide(counts: &[(Move, u64)]) -> String {
    counts
        .iter()
        .map(|(mv, count)| format!("{mv}: {count}\n"))
        .collect()
}

/// The report of a `bench`: its time, nodes and speed, a line each.
pub fn format_bench(report: &BenchReport) -> String {
    format!(
        "Total time (ms) : {}\nNodes searched  : {}\nNodes/second    : {}",
        report.time.as_millis(),
        report.nodes,
        nodes_per_second(report.nodes, report.time)
    )
}

/// Nodes a second over `time`, counted as at least a millisecond.
fn nodes_per_second(nodes: u64, time: Duration) -> u128 {
    u128::from(nodes) * 1000 / time.as_millis().max(1)
}

/// The `option name ...` line of the `uci` reply.
pub(super) fn format_option(option: EngineOption) -> String {
    let kind = match option.kind() {
        OptionKind::Spin { default, min, max } => {
            format!("spin default {default} min {min} max {max}")
        }
        OptionKind::Check { default } => format!("check default {default}"),
        OptionKind::Combo { default, vars } => {
            let vars: String = vars.iter().map(|v| format!(" var {v}")).collect();
            format!("combo default {default}{vars}")
        }
        OptionKind::Text => "string default <empty>".to_owned(),
        OptionKind::Button => "button".to_owned(),
    };
    format!("option name {} type {kind}", option.name())
}

/// The `eval` reply: a table of the terms for White, Black and the
/// difference, then the total.
pub(super) fn format_eval(terms: &Breakdown) -> String {
    let mut text = format!(
        "{:<16} {:>7} {:>7} {:>7}\n",
        "term", "white", "black", "total"
    );
    for (term, [white, black]) in Term::ALL.iter().zip(terms.terms) {
        text += &format!(
            "{:<16} {white:>7} {black:>7} {:>7}\n",
            term.name(),
            white - black
        );
    }
    text += &format!("{:<16} {:>23}\n", "tempo", terms.tempo);
    text += &format!(
        "{:<16} {:>22}%\n",
        "n-move share",
        100 * terms.draw_rule_share / PHASE_SCALE
    );
    text += &format!(
        "total: {} cp for {} (side to move)",
        terms.total(),
        terms.side_to_move.name()
    );
    text
}

/// What an option just set tells a person.
pub(super) fn format_note(note: &OptionNote) -> String {
    match note {
        OptionNote::DatabaseRefused(err) => format!("endgame database left out: {err}"),
        OptionNote::DatabasesLoaded { sectors } => {
            format!("endgame databases: {sectors} sectors loaded")
        }
    }
}

/// The `bestmove` line of a finished search, in `notation`.
pub fn format_bestmove(answer: &BestMove, notation: MoveNotation) -> String {
    let Some(best) = answer.best else {
        return "bestmove (none)".to_owned();
    };
    // In split notation a mill-closing turn is written as its action, and
    // the GUI's next message is that action, not the reply: no ponder move
    // may follow it, and a reply that closes a mill has no one-token form.
    let split = notation == MoveNotation::Split;
    let ponder = answer
        .ponder
        .filter(|p| !split || p.removal.is_none())
        .map(|p| format!(" ponder {p}"))
        .unwrap_or_default();
    match (answer.completes, best.removal) {
        (Some(_), Some(removal)) => format!("bestmove x{removal}{ponder}"),
        (None, Some(_)) if split => format!(
            "bestmove {}",
            Move {
                removal: None,
                ..best
            }
        ),
        _ => format!("bestmove {best}{ponder}"),
    }
}

/// The longest run of text without spaces an error line repeats: input
/// tokens are echoed in errors, and a megabyte token must not come back
/// whole.
const MAX_ECHOED_TOKEN: usize = 40;

/// An error text fit for one line of output: control characters escaped,
/// over-long tokens cut.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(512));
    for word in text.split(' ') {
        if !out.is_empty() {
            out.push(' ');
        }
        let mut chars = word.chars();
        for c in chars.by_ref().take(MAX_ECHOED_TOKEN) {
            if c.is_control() {
                out.extend(c.escape_default());
            } else {
                out.push(c);
            }
        }
        if let Some(last) = chars.next_back() {
            out.push_str("...");
            // Keep the closing quote or punctuation of a cut token.
            if last.is_ascii_punctuation() {
                out.push(last);
            }
        }
    }
    out
}

/// The `d` reply: board, position string, side, phases, hands, legal moves
/// and whether the game is over.
pub(super) fn describe(engine: &Engine) -> String {
    let game = engine.game();
    let pos = game.position();
    let side = pos.side_to_move();
    let moves = match engine.pending() {
        Some(action) => pos.completions(action),
        None => pos.legal_moves(),
    };
    let moves: Vec<String> = moves.iter().map(Move::to_string).collect();
    let mut text = pos.diagram();
    text.push_str(&format!("\nFen: {}\n", pos.fen()));
    text.push_str(&format!("Variant: {}\n", pos.rules().variant));
    text.push_str(&format!("Side to move: {}\n", side.name()));
    for color in Color::ALL {
        text.push_str(&format!(
            "{}: {}, {} in hand, {} on the board\n",
            color,
            pos.phase(color),
            pos.in_hand(color),
            pos.stones(color).len()
        ));
    }
    if let Some(action) = engine.pending() {
        text.push_str(&format!("Waiting for the removal of: {action}\n"));
    }
    text.push_str(&format!(
        "Legal moves ({}): {}\n",
        moves.len(),
        moves.join(" ")
    ));
    match game.outcome() {
        Some(outcome) if engine.pending().is_none() => {
            text.push_str(&format!("Game over: {outcome}"))
        }
        _ => text.push_str("Game over: no"),
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_follows_the_uci_syntax() {
        let lines: Vec<String> = EngineOption::ALL.into_iter().map(format_option).collect();
        assert!(lines[0].starts_with("option name Hash type spin default 64 min 1 max "));
        assert!(lines.contains(&"option name Ponder type check default false".to_string()));
        assert!(
            lines.contains(
                &"option name Variant type combo default nine var nine var twelve var lasker"
                    .to_string()
            )
        );
        assert!(lines.contains(&"option name EndgameDB type string default <empty>".to_string()));
        assert!(lines.contains(&"option name Clear Hash type button".to_string()));
        assert!(
            lines.contains(
                &"option name MoveNotation type combo default compound var compound var split"
                    .to_string()
            )
        );
        assert!(lines.contains(
            &"option name Move Overhead type spin default 30 min 0 max 10000".to_string()
        ));
    }
}
