//! `review`: the games of a record file judged by the databases, move by
//! move, and what each player gave away.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};

use morris::endgame::{DbOutcome, JudgedMove, judge_game};
use morris::{Color, GameRecord, GameResult, Position, parse_records};

use crate::cli::{db_dir, open_databases};

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
    lost: usize,
    lost_from_held: usize,
}

/// Reviews every game of the file: its opening's value, each move that
/// changed the game's value, and a tally per player.
pub fn review(args: ReviewArgs) -> Result<()> {
    let text = std::fs::read_to_string(&args.records)
        .with_context(|| format!("reading {}", args.records.display()))?;
    let records = parse_records(&text)
        .with_context(|| format!("the records in {}", args.records.display()))?;
    let (db, _) = open_databases(&db_dir(args.db)?)?;
    out!("Values leave the draw rules out, as the databases do.");
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for (number, record) in (1..).zip(&records) {
        let game = record
            .replay()
            .with_context(|| format!("game {number} of {}", args.records.display()))?;
        let names = Color::ALL.map(|side| player(record, side));
        let opening = db.outcome(game.start());
        let judged = judge_game(&db, &game);
        let changes: Vec<&JudgedMove> = judged.iter().filter(|j| j.changes_value()).collect();
        out!(
            "game {number} ({} vs {}, {}): opening {}; {}",
            names[0],
            names[1],
            record.result.token(),
            describe_opening(game.start(), opening),
            match changes.len() {
                0 => "no move changed the value".to_owned(),
                1 => "1 move changed the value".to_owned(),
                n => format!("{n} moves changed the value"),
            }
        );
        let mut pos = *game.start();
        for j in &judged {
            if let (true, Some(before), Some(after)) = (j.changes_value(), j.before, j.after) {
                out!(
                    "  {}{} {} by {}: {before} to {after}",
                    pos.fullmove_number(),
                    if j.mover == Color::White { "." } else { "..." },
                    j.mv,
                    names[j.mover.index()]
                );
            }
            pos.play_unchecked(j.mv);
        }
        for side in Color::ALL {
            let tally = tallies.entry(names[side.index()].clone()).or_default();
            let own = judged.iter().filter(|j| j.mover == side);
            tally.moves += own.clone().count();
            tally.judged += own.clone().filter(|j| j.before.is_some()).count();
            tally.changed += own.filter(|j| j.changes_value()).count();
            if loser(record.result) == Some(side) {
                tally.lost += 1;
                let held = opening
                    .map(|o| {
                        if game.start().side_to_move() == side {
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
            "{name}: {} moves, {} judged, {} changed the value; {} games lost, {} of them from an opening drawn or won for {name}",
            t.moves,
            t.judged,
            t.changed,
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
