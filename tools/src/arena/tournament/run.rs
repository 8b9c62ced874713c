//! Playing a match: the engines checked first, then the worker threads
//! that play the schedule's games, the standings and the record file kept
//! up to date as each game finishes.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;

use morris::GameResult;

use super::{MatchConfig, Pairing, PgnOut, Standings, schedule};
use crate::arena::game::{PlayedGame, play_game};
use crate::client::EngineProcess;
use morris::files::write_whole;

/// Writes every record to the file through a temporary file, so that an
/// interrupted run never leaves half a file.
///
/// # Errors
///
/// The file cannot be written.
pub fn write_records(out: &PgnOut, games: &[PlayedGame]) -> std::io::Result<()> {
    let text: String = games
        .iter()
        .map(|g| {
            if out.minimal {
                let mut record = g.record.clone();
                record.comments.clear();
                record.to_string()
            } else {
                g.record.to_string()
            }
        })
        .collect();
    write_whole(&out.path, &[text.as_bytes()])
}

/// An engine that cannot take part: the match does not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineStartError {
    /// The engine's name.
    pub name: String,
    /// What went wrong.
    pub reason: String,
}

impl fmt::Display for EngineStartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "engine {}: {}", self.name, self.reason)
    }
}

/// Starts every engine once and sets it up as a game would, before any
/// game is played; returns warnings for a person (options the engine does
/// not list, error lines it wrote while being set up).
///
/// # Errors
///
/// The first engine that cannot be started or does not answer.
pub fn check_engines(
    config: &MatchConfig,
    interrupt: &AtomicBool,
) -> Result<Vec<String>, EngineStartError> {
    let mut warnings = Vec::new();
    for engine in &config.engines {
        let fail = |reason: String| EngineStartError {
            name: engine.name.clone(),
            reason,
        };
        let mut process = EngineProcess::start(engine)
            .map_err(|e| fail(format!("cannot start '{}': {e}", engine.cmd)))?;
        let options = engine.game_options(config.settings.rules);
        let handshake = process
            .handshake(&options, interrupt)
            .map_err(|failure| fail(format!("no answer to uci or isready ({failure:?})")))?;
        warnings.extend(
            options
                .iter()
                .filter(|(name, value)| {
                    !handshake.lists_option(name) && handshake.takes(name, value)
                })
                .map(|(name, _)| format!("engine {}: no option '{name}' listed", engine.name)),
        );
        warnings.extend(
            handshake
                .answer
                .iter()
                .filter(|l| l.contains("error") || l.starts_with("No such option"))
                .map(|l| format!("engine {}: {l}", engine.name)),
        );
    }
    Ok(warnings)
}

/// Plays the schedule with `concurrency` games at once, calling `progress`
/// after each game; stops early when the SPRT decides or `interrupt` is set.
///
/// # Errors
///
/// The record file cannot be written.
pub fn run_match(
    config: &MatchConfig,
    interrupt: &AtomicBool,
    mut progress: impl FnMut(&Standings, &Pairing, &PlayedGame),
) -> std::io::Result<Standings> {
    let games = schedule(config);
    let n = config.engines.len();
    let mut standings = Standings::new(n, games.len());
    let next = AtomicUsize::new(0);
    let decided = AtomicBool::new(false);
    let (results, finished) = channel();
    std::thread::scope(|scope| -> std::io::Result<()> {
        for _ in 0..config.concurrency.max(1) {
            let (results, games, next, decided) = (results.clone(), &games, &next, &decided);
            scope.spawn(move || {
                loop {
                    if interrupt.load(Ordering::Relaxed) || decided.load(Ordering::Relaxed) {
                        break;
                    }
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&pairing) = games.get(index) else {
                        break;
                    };
                    let played = play_game(
                        &config.engines[pairing.white],
                        &config.engines[pairing.black],
                        &config.openings[pairing.opening],
                        &config.settings,
                        pairing.round,
                        interrupt,
                    );
                    if results.send((pairing, played)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(results);
        for (pairing, played) in finished {
            if played.result == GameResult::Unfinished && interrupt.load(Ordering::Relaxed) {
                continue;
            }
            standings.add(pairing, &played);
            standings.records.push(played);
            if let Some(out) = &config.pgn_out {
                write_records(out, &standings.records)?;
            }
            if let (Some(sprt), 2) = (config.sprt, n) {
                if standings.weigh_sprt(sprt, config.games) {
                    decided.store(true, Ordering::Relaxed);
                }
            }
            if let Some(last) = standings.records.last() {
                progress(&standings, &pairing, last);
            }
        }
        Ok(())
    })?;
    Ok(standings)
}
