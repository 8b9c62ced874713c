//! The `morris` command line: the text protocol by default, and commands
//! for people (`play`), for the databases (`gen-db`, `db-stats`,
//! `db-verify`, `db-compare`, `db-convert`, `probe`, `review`) and for
//! measuring (`perft`, `bench`).

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

use morris::search::BENCH_DEPTH;

/// Writes a line to standard output, returning the error (a closed pipe,
/// say) instead of panicking as `println!` does.
macro_rules! out {
    ($($arg:tt)*) => {
        writeln!(std::io::stdout().lock(), $($arg)*)?
    };
}

mod cli;

use cli::db::{CompareArgs, ConvertArgs, GenDbArgs, ProbeArgs, VerifyArgs};
use cli::measure::PerftArgs;
use cli::play::PlayArgs;
use cli::puzzles::PuzzlesArgs;
use cli::review::ReviewArgs;

/// A Nine Men's Morris engine. With no command it speaks the text protocol
/// (UCI style) on standard input and output.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Speak the text protocol on standard input and output (the default).
    Uci,
    /// Count the move sequences of a given length (a test of the rules).
    Perft(PerftArgs),
    /// Play a game against the engine in the terminal.
    Play(PlayArgs),
    /// Build the endgame databases by retrograde analysis.
    GenDb(GenDbArgs),
    /// Print the counts of every database sector in a folder.
    DbStats {
        /// Folder of database files (default: the default folder).
        dir: Option<std::path::PathBuf>,
    },
    /// Check the database files of a folder, and their values against their successors'.
    DbVerify(VerifyArgs),
    /// Compare the values of two folders of database files, index by index.
    DbCompare(CompareArgs),
    /// Convert the database files of a folder from the format before this build's, or into its smallest layout.
    DbConvert(ConvertArgs),
    /// Print the database value of a position and of each of its moves.
    Probe(ProbeArgs),
    /// Judge the games of a record file by the databases: the moves that changed the game's value.
    Review(ReviewArgs),
    /// Find the positions of a record file's games where one move alone keeps the value, graded by search depth.
    Puzzles(PuzzlesArgs),
    /// Search a fixed set of positions; the node count is a signature of the search.
    Bench {
        /// Depth of each search.
        #[arg(default_value_t = BENCH_DEPTH)]
        depth: u32,
    },
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that went away (`morris perft 6 --divide | head`) is not an error.
        Err(err)
            if err
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<()> {
    match Cli::parse().command {
        None | Some(Command::Uci) => {
            let stdin = std::io::BufReader::new(std::io::stdin());
            let default_db = morris::solution::existing_default_dir();
            morris::uci::run_with(stdin, &mut std::io::stdout().lock(), default_db)?;
            Ok(())
        }
        Some(Command::Perft(args)) => cli::measure::perft(&args),
        Some(Command::Play(args)) => cli::play::play(args),
        Some(Command::GenDb(args)) => cli::db::gen_db(args),
        Some(Command::DbStats { dir }) => cli::db::db_stats(&cli::db_dir(dir)?),
        Some(Command::DbVerify(args)) => cli::db::db_verify(args),
        Some(Command::DbCompare(args)) => cli::db::db_compare(args),
        Some(Command::DbConvert(args)) => cli::db::db_convert(args),
        Some(Command::Probe(args)) => cli::db::probe(args),
        Some(Command::Review(args)) => cli::review::review(args),
        Some(Command::Puzzles(args)) => cli::puzzles::puzzles(args),
        Some(Command::Bench { depth }) => cli::measure::bench(depth),
    }
}
