//! morris-arena: plays engines against each other through the protocol.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use morris_tools::arena::args::parse_args;
use morris_tools::arena::stats::SprtState;
use morris_tools::arena::tournament::{results_table, run_match};

static INTERRUPT: AtomicBool = AtomicBool::new(false);

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
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
            if let Some((elo, margin)) = score.elo().filter(|(e, _)| e.is_finite()) {
                line.push_str(&format!(" Elo {elo:+.1} ± {margin:.1}"));
            }
            if let Some(sprt) = config.sprt {
                let (lower, upper) = sprt.bounds();
                line.push_str(&format!(
                    " LLR {:.2} ({lower:.2}, {upper:.2})",
                    sprt.llr(score)
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
    if INTERRUPT.load(Ordering::Relaxed) {
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
    ExitCode::SUCCESS
}
