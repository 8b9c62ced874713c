//! morris-arena: plays engines against each other through the protocol.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use morris::{GameResult, parse_records};
use morris_tools::arena::args::parse_args;
use morris_tools::arena::stats::SprtState;
use morris_tools::arena::tournament::{check_engines, elo_text, results_table, run_match};

static INTERRUPT: AtomicBool = AtomicBool::new(false);

/// Exit status of a match stopped by Ctrl-C, as shells report SIGINT.
const INTERRUPTED: u8 = 130;

/// Replays the records of `path` and reports the first illegal move of
/// each bad record; the status says whether all were good.
fn check_records(path: &str) -> ExitCode {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) => {
            eprintln!("{path}: {err}");
            return ExitCode::from(2);
        }
    };
    let records = match parse_records(&text) {
        Ok(records) => records,
        Err(err) => {
            println!("{path}: {err}");
            return ExitCode::FAILURE;
        }
    };
    let mut bad = 0;
    for (number, record) in (1..).zip(&records) {
        let game = match record.replay() {
            Ok(game) => game,
            Err(err) => {
                bad += 1;
                println!("game {number}: {err}");
                continue;
            }
        };
        let claimed = record.result;
        let by_rules = game
            .outcome()
            .map(|outcome| GameResult::from_winner(outcome.winner()));
        // A game the rules ended must carry that result; an adjudicated
        // one (a loss on time, a crash) need not have ended by the rules.
        if by_rules.is_some_and(|result| result != claimed) {
            bad += 1;
            println!(
                "game {number}: the result is {} but the moves end it {}",
                claimed.token(),
                by_rules.map_or("*", GameResult::token)
            );
        }
    }
    println!("{} games checked, {bad} bad", records.len());
    if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, path] = args.as_slice() {
        if flag == "--check" || flag == "-check" {
            return check_records(path);
        }
    }
    let config = match parse_args(&args) {
        Ok(config) => config,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    if let Err(err) = ctrlc::set_handler(|| INTERRUPT.store(true, Ordering::Relaxed)) {
        eprintln!("warning: Ctrl-C will not stop the match cleanly: {err}");
    }
    match check_engines(&config, &INTERRUPT) {
        Ok(warnings) => {
            for warning in warnings {
                eprintln!("warning: {warning}");
            }
        }
        Err(err) => {
            eprintln!("error: {err}; the match is not played");
            return ExitCode::FAILURE;
        }
    }
    let two = config.engines.len() == 2;
    let result = run_match(&config, &INTERRUPT, |standings, _, game| {
        let mut line = format!("[{}/{}] ", standings.played, standings.scheduled);
        if two {
            let score = standings.scores[0][1];
            line.push_str(&format!(
                "{} vs {}: +{} ={} -{} ({:.1}%)",
                config.engines[0].name,
                config.engines[1].name,
                score.wins,
                score.draws,
                score.losses,
                100.0 * score.mean()
            ));
            let pairs = standings.pairs[0][1];
            if pairs.pairs() > 0 {
                let [ll, ld, dd, wd, ww] = pairs.counts;
                line.push_str(&format!(
                    " pairs [{ll} {ld} {dd} {wd} {ww}] Elo {}",
                    elo_text(pairs.sample())
                ));
            }
            if let Some(sprt) = config.sprt {
                let (lower, upper) = sprt.bounds();
                line.push_str(&format!(
                    " LLR {:.2} ({lower:.2}, {upper:.2})",
                    sprt.llr(standings.sample(config.games))
                ));
            }
        }
        line.push_str(&format!(
            "  last: {} ({})",
            game.result.token(),
            game.termination
        ));
        // One line rewritten in place on a terminal, a line per game elsewhere.
        if std::io::stderr().is_terminal() {
            eprint!("\r\x1b[2K{line}");
            let _ = std::io::stderr().flush();
        } else {
            eprintln!("{line}");
        }
        if config
            .rating_interval
            .is_some_and(|n| standings.played % n == 0)
        {
            eprintln!("\n{}", results_table(&config, standings));
        }
    });
    if std::io::stderr().is_terminal() {
        eprintln!();
    }
    let standings = match result {
        Ok(standings) => standings,
        Err(err) => {
            eprintln!("cannot write the game records: {err}");
            return ExitCode::FAILURE;
        }
    };
    let interrupted = INTERRUPT.load(Ordering::Relaxed);
    if interrupted {
        println!("Interrupted after {} games.", standings.played);
    }
    print!("{}", results_table(&config, &standings));
    match standings.sprt {
        Some(SprtState::AcceptH1) => {
            println!("SPRT: H1 accepted ({} is stronger)", config.engines[0].name)
        }
        Some(SprtState::AcceptH0) => println!("SPRT: H0 accepted"),
        Some(SprtState::Running) => println!("SPRT: no decision yet"),
        None => {}
    }
    if interrupted {
        ExitCode::from(INTERRUPTED)
    } else {
        ExitCode::SUCCESS
    }
}
