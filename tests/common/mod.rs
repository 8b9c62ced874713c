//! Helpers shared by the integration tests: the independent reference
//! implementation of the rules and the perft data file.

// Each test crate uses a different part of these helpers.
#![allow(dead_code)]

pub mod reference;

use morris::{Position, Rules};

/// One position of `tests/data/positions.perft` with its counts.
#[derive(Clone, Debug)]
pub struct PerftCase {
    pub id: String,
    pub fen: String,
    pub variant: String,
    pub flying: bool,
    /// (depth, nodes), shallowest first.
    pub counts: Vec<(u32, u64)>,
}

impl PerftCase {
    pub fn rules(&self) -> Rules {
        Rules {
            flying: self.flying,
            ..Rules::new(self.variant.parse().expect("variant"))
        }
    }

    pub fn position(&self) -> Position {
        Position::from_fen(&self.fen, self.rules()).expect(&self.id)
    }

    pub fn reference(&self) -> (reference::RefRules, reference::RefPosition) {
        (
            reference::RefRules::new(&self.variant, self.flying),
            reference::RefPosition::from_fen(&self.fen),
        )
    }
}

/// Reads every case of the perft data file.
pub fn perft_cases() -> Vec<PerftCase> {
    let text = include_str!("../data/positions.perft");
    let mut cases: Vec<PerftCase> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((key, value)) = line.split_once(' ') else {
            continue;
        };
        if key == "id" {
            cases.push(PerftCase {
                id: value.to_owned(),
                fen: String::new(),
                variant: "nine".to_owned(),
                flying: true,
                counts: Vec::new(),
            });
            continue;
        }
        let case = cases.last_mut().expect("a line before the first id");
        match key {
            "fen" => case.fen = value.to_owned(),
            "rules" => {
                let (variant, flying) = value.split_once(' ').expect("rules <variant> <flying>");
                case.variant = variant.to_owned();
                case.flying = flying == "flying";
            }
            "perft" => {
                let (depth, nodes) = value.split_once(' ').expect("perft <depth> <nodes>");
                case.counts
                    .push((depth.parse().expect("depth"), nodes.parse().expect("nodes")));
            }
            other => panic!("unknown key {other}"),
        }
    }
    cases
}
