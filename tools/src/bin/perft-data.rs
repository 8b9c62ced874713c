//! perft-data: makes and checks the perft data of `tests/data/` with the
//! independent reference generator of `tests/common/reference.rs`.
//!
//! `perft-data generate FILE` reads positions (`id`, `fen` and `rules`
//! lines; any `perft` lines are ignored), counts each with the reference
//! depth by depth while the count stays within `--max-nodes`, checks that
//! the engine agrees at every depth, and writes the data file.
//!
//! `perft-data divide --fen FEN DEPTH` prints the count below each root
//! move from the engine and from the reference side by side, to find the
//! move where they part.

#[path = "../../../tests/common/data.rs"]
mod data;
#[path = "../../../tests/common/reference.rs"]
mod reference;

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use rayon::prelude::*;

use morris::files::write_whole;
use morris::{Position, Rules, Variant};
use reference::{RefPosition, RefRules, notation};

#[derive(Parser)]
#[command(about = "Make and check perft data with the independent reference generator")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count positions with the reference and write a perft data file.
    Generate {
        /// Positions: id, fen and rules lines, a blank line between them.
        input: PathBuf,
        /// Stop deepening a position once a count exceeds this.
        #[arg(long, default_value_t = 20_000_000)]
        max_nodes: u64,
        /// Write here (through a temporary file) instead of to stdout.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Compare the counts below each root move, engine against reference.
    Divide {
        /// Number of turns.
        depth: u32,
        /// The position string (default: the start position).
        #[arg(long)]
        fen: Option<String>,
        /// nine, twelve or lasker.
        #[arg(long, default_value = "nine")]
        variant: Variant,
        /// Turn flying off.
        #[arg(long)]
        no_flying: bool,
    },
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Command::Generate {
            input,
            max_nodes,
            out,
        } => generate(&input, max_nodes, out.as_deref()),
        Command::Divide {
            depth,
            fen,
            variant,
            no_flying,
        } => divide(depth, fen, variant, !no_flying),
    }
}

/// The reference count, its root moves shared out among threads.
fn reference_perft(rules: &RefRules, pos: &RefPosition, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    pos.moves(rules)
        .par_iter()
        .map(|&mv| pos.after(mv).perft(rules, depth - 1))
        .sum()
}

fn generate(input: &Path, max_nodes: u64, out: Option<&Path>) -> Result<()> {
    let text = fs::read_to_string(input).with_context(|| format!("reading {}", input.display()))?;
    let mut file = String::from(concat!(
        "# Perft counts: the number of move sequences of each length, a mill-closing\n",
        "# turn counted once per stone it may remove, draw rules ignored.\n",
        "# Every count was computed by the independent reference generator in\n",
        "# tests/common/reference.rs (no code shared with the library), with\n",
        "# `cargo run --release -p morris-tools --bin perft-data -- generate`.\n",
        "# Format: id, fen, rules <variant> <flying|noflying>, then perft <depth> <nodes>.\n",
    ));
    let cases = data::parse(&text).map_err(anyhow::Error::msg)?;
    for case in cases {
        let engine = case
            .position()
            .with_context(|| format!("position {}", case.id))?;
        let (rules, pos) = case.reference();
        let flying = if case.rules.flying {
            "flying"
        } else {
            "noflying"
        };
        file.push_str(&format!(
            "\nid {}\nfen {}\nrules {} {flying}\n",
            case.id, case.fen, case.rules.variant
        ));
        for depth in 1.. {
            let nodes = reference_perft(&rules, &pos, depth);
            let ours = morris::perft(&engine, depth);
            if ours != nodes {
                bail!(
                    "{} depth {depth}: reference {nodes}, engine {ours}",
                    case.id
                );
            }
            eprintln!("{} depth {depth}: {nodes}", case.id);
            file.push_str(&format!("perft {depth} {nodes}\n"));
            // A position with no moves gives zero at every depth.
            if nodes > max_nodes || nodes == 0 {
                break;
            }
        }
    }
    match out {
        Some(path) => write_whole(path, &[file.as_bytes()])
            .with_context(|| format!("writing {}", path.display()))?,
        None => std::io::stdout().write_all(file.as_bytes())?,
    }
    Ok(())
}

fn divide(depth: u32, fen: Option<String>, variant: Variant, flying: bool) -> Result<()> {
    let fen = fen.unwrap_or_else(|| Position::new(Rules::new(variant)).fen());
    let engine = Position::from_fen(
        &fen,
        Rules {
            flying,
            ..Rules::new(variant)
        },
    )?;
    let rules = RefRules::new(variant.name(), flying);
    let pos = RefPosition::from_fen(&fen);
    let depth = depth.max(1);
    let mut rows: BTreeMap<String, (Option<u64>, Option<u64>)> = BTreeMap::new();
    for (mv, nodes) in morris::divide(&engine, depth) {
        rows.entry(mv.to_string()).or_default().0 = Some(nodes);
    }
    let below: Vec<(String, u64)> = pos
        .moves(&rules)
        .par_iter()
        .map(|&mv| (notation(mv), pos.after(mv).perft(&rules, depth - 1)))
        .collect();
    for (token, nodes) in below {
        rows.entry(token).or_default().1 = Some(nodes);
    }
    let show = |n: Option<u64>| n.map_or("-".to_owned(), |n| n.to_string());
    let mut differences = 0;
    println!("{:<12} {:>12} {:>12}", "move", "engine", "reference");
    for (token, (ours, theirs)) in &rows {
        let mark = if ours == theirs { "" } else { "  <- differs" };
        differences += usize::from(ours != theirs);
        println!(
            "{token:<12} {:>12} {:>12}{mark}",
            show(*ours),
            show(*theirs)
        );
    }
    println!("{differences} of {} moves differ", rows.len());
    Ok(())
}
