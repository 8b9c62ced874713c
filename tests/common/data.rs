//! The perft data format: `id`, `fen`, `rules <variant> <flying|noflying>`
//! and `perft <depth> <nodes>` lines, `#` comments, a blank line between
//! positions.

use morris::{FenError, Position, Rules, Variant};

use super::reference::{RefPosition, RefRules};

/// One position of a perft data file with its counts.
#[derive(Clone, Debug)]
pub struct PerftCase {
    pub id: String,
    pub fen: String,
    pub rules: Rules,
    /// (depth, nodes), shallowest first.
    pub counts: Vec<(u32, u64)>,
}

impl PerftCase {
    pub fn position(&self) -> Result<Position, FenError> {
        Position::from_fen(&self.fen, self.rules)
    }

    pub fn reference(&self) -> (RefRules, RefPosition) {
        (
            RefRules::new(self.rules.variant.name(), self.rules.flying),
            RefPosition::from_fen(&self.fen),
        )
    }
}

/// Reads every case of a perft data file.
///
/// # Errors
///
/// The first malformed line, with its number.
pub fn parse(text: &str) -> Result<Vec<PerftCase>, String> {
    let mut cases: Vec<PerftCase> = Vec::new();
    for (number, line) in (1..).zip(text.lines()) {
        let error = |what: &str| format!("line {number}: {what}: {line}");
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (key, value) = line.split_once(' ').ok_or_else(|| error("no value"))?;
        if key == "id" {
            cases.push(PerftCase {
                id: value.to_owned(),
                fen: String::new(),
                rules: Rules::default(),
                counts: Vec::new(),
            });
            continue;
        }
        let case = cases
            .last_mut()
            .ok_or_else(|| error("before the first id"))?;
        match key {
            "fen" => case.fen = value.to_owned(),
            "rules" => {
                let (variant, flying) = value
                    .split_once(' ')
                    .ok_or_else(|| error("rules <variant> <flying|noflying>"))?;
                case.rules.variant = variant
                    .parse::<Variant>()
                    .map_err(|e| error(&e.to_string()))?;
                case.rules.flying = match flying {
                    "flying" => true,
                    "noflying" => false,
                    _ => return Err(error("expected flying or noflying")),
                };
            }
            "perft" => {
                let count = value
                    .split_once(' ')
                    .and_then(|(depth, nodes)| Some((depth.parse().ok()?, nodes.parse().ok()?)))
                    .ok_or_else(|| error("perft <depth> <nodes>"))?;
                case.counts.push(count);
            }
            _ => return Err(error("unknown key")),
        }
    }
    Ok(cases)
}
