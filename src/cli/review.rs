//! `review`: the games of a record file judged by the databases, move by
//! move, and what each player gave away.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};

use morris::solution::{DbOutcome, JudgedMove, Judgement, judge_game};
use morris::{Color, GameRecord, GameResult, Position};

use crate::cli::{db_dir, open_databases, read_records};

/// What `review` reads.
#[derive(clap::Args)]
pub struct ReviewArgs {
    /// A file of game records (as `play` and `morris-arena -pgnout` write).
    records: PathBuf,
    /// Folder of database files (default: the default folder).
    #[arg(long)]
    db: Option<PathBuf>,
}

/// What one player did over the games reviewed.
#[derive(Default)]
struct Tally {
    moves: usize,
    judged: usize,
    changed: usize,
    changed_with_rule: usize,
    lost: usize,
    lost_from_held: usize,
}

/// Reviews every game of the file: its opening's value (after the moves
/// marked `book`, which are no player's), each move of the players that
/// changed the game's value, and a tally per player.
pub fn review(args: ReviewArgs) -> Result<()> {
    let records = read_records(&args.records)?;
    let (db, _) = open_databases(&db_dir(args.db)?)?;
    out!(
        "Values as stored leave the draw rules out, as a published solution does; \
         'with the N-move rule' applies the game's rule to the moving phase's plies to the next removal."
    );
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for (number, record) in (1..).zip(&records) {
        let game = record
            .replay()
            .with_context(|| format!("game {number} of {}", args.records.display()))?;
        let names = Color::ALL.map(|side| player(record, side));
        // The moves marked `book` open the game; the players' own begin after.
        let book = (0..record.moves.len())
            .take_while(|i| record.comments.get(i).is_some_and(|c| c == "book"))
            .count();
        let mut pos = *game.start();
        for &mv in &game.moves()[..book] {
            pos.play_unchecked(mv);
        }
        let opening_position = pos;
        let opening = db.outcome(&opening_position);
        let judged = judge_game(&db, &game).split_off(book);
        let count =
            |changed: fn(&JudgedMove) -> bool| judged.iter().filter(|&j| changed(j)).count();
        let changed = count(|j| j.stored.changes_value());
        let changed_with_rule = count(|j| j.with_rule.changes_value());
        out!(
            "game {number} ({} vs {}, {}): opening{} {}; {} changed the value ({changed_with_rule} with the N-move rule)",
            names[0],
            names[1],
            record.result.token(),
            match book {
                0 => String::new(),
                1 => " (1 book move)".to_owned(),
                n => format!(" ({n} book moves)"),
            },
            describe_opening(&opening_position, opening),
            match changed {
                1 => "1 move".to_owned(),
                n => format!("{n} moves"),
            }
        );
        for j in &judged {
            if j.stored.changes_value() || j.with_rule.changes_value() {
                let rule = if j.with_rule == j.stored {
                    String::new()
                } else if j.with_rule.before.is_none() || j.with_rule.after.is_none() {
                    "; not known with the N-move rule".to_owned()
                } else {
                    format!("; with the N-move rule {}", describe(j.with_rule))
                };
                out!(
                    "  {}{} {} by {}: {}{rule}",
                    pos.fullmove_number(),
                    if j.mover == Color::White { "." } else { "..." },
                    j.mv,
                    names[j.mover.index()],
                    describe(j.stored)
                );
            }
            pos.play_unchecked(j.mv);
        }
        for side in Color::ALL {
            let tally = tallies.entry(names[side.index()].clone()).or_default();
            let own = judged.iter().filter(|j| j.mover == side);
            tally.moves += own.clone().count();
            tally.judged += own.clone().filter(|j| j.stored.before.is_some()).count();
            tally.changed += own.clone().filter(|j| j.stored.changes_value()).count();
            tally.changed_with_rule += own.filter(|j| j.with_rule.changes_value()).count();
            if loser(record.result) == Some(side) {
                tally.lost += 1;
                let held = opening
                    .map(|o| {
                        if opening_position.side_to_move() == side {
                            o
                        } else {
                            -o
                        }
                    })
                    .is_some_and(|o| o >= DbOutcome::Draw);
                if held {
                    tally.lost_from_held += 1;
                    out!(
                        "  {} lost an opening the databases call drawn or won for it",
                        names[side.index()]
                    );
                }
            }
        }
    }
    out!("{} games", records.len());
    for (name, t) in &tallies {
        out!(
            "{name}: {} moves, {} judged, {} changed the value ({} with the N-move rule); {} games lost, {} of them from an opening drawn or won for {name}",
            t.moves,
            t.judged,
            t.changed,
            t.changed_with_rule,
            t.lost,
            t.lost_from_held
        );
    }
    Ok(())
}

/// The player of `side` as the record names it.
fn player(record: &GameRecord, side: Color) -> String {
    let tag = if side == Color::White {
        "White"
    } else {
        "Black"
    };
    record
        .tag(tag)
        .map_or_else(|| side.to_string(), str::to_owned)
}

/// The side that lost, by the result.
fn loser(result: GameResult) -> Option<Color> {
    match result {
        GameResult::WhiteWins => Some(Color::Black),
        GameResult::BlackWins => Some(Color::White),
        GameResult::Draw | GameResult::Unfinished => None,
    }
}

/// The opening's value in words, for White.
fn describe_opening(start: &Position, outcome: Option<DbOutcome>) -> String {
    let Some(outcome) = outcome else {
        return "not in the databases".to_owned();
    };
    let for_white = if start.side_to_move() == Color::White {
        outcome
    } else {
        -outcome
    };
    match for_white {
        DbOutcome::Win => "won for white".to_owned(),
        DbOutcome::Draw => "drawn".to_owned(),
        DbOutcome::Loss => "won for black".to_owned(),
    }
}

/// A judgement in words: "draw to loss".
fn describe(judgement: Judgement) -> String {
    let name = |outcome: Option<DbOutcome>| {
        outcome.map_or_else(|| "unknown".to_owned(), |o| o.to_string())
    };
    format!("{} to {}", name(judgement.before), name(judgement.after))
}
