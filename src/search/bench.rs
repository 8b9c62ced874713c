//! The bench: fixed-depth searches of a fixed list of positions, whose
//! total node count is a signature of the search.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::board::{Position, Rules};
use crate::search::{SearchLimits, SearchRequest, TranspositionTable};

/// Nine Men's Morris positions from every phase: the opening, placing with
/// mills threatened, the middle game, endings with and without flying.
pub const BENCH_POSITIONS: [&str; 12] = [
    ".../.../.../....../.../.../... w 9 9 0 1",
    ".../.W./.../.W..../.../.B./... b 7 8 3 2",
    "WW./BB./.../W...B./.../.../... w 6 6 4 4",
    "W.W/.W./.W./....../.../.../BBB w 5 5 0 5",
    "WBW/.B./WB./BW.WB./.W./B.W/.B. b 0 1 0 9",
    "WWB/BW./WB./B.WBW./.B./W.B/... w 0 0 10 20",
    "BBB/.../.../BW..W./.../.WW/B.. w 0 0 6 25",
    "BWB/.W./.../W...W./.../.W./BWB b 0 0 2 22",
    "W../.B./..W/BB..W./.B./B../..B w 0 0 3 30",
    "W../.B./..W/BB..W./.B./B../..B b 0 0 3 30",
    "W.W/.../BB./....../..B/.W./... b 0 0 0 40",
    "WW./B.B/W.B/.B..W./.W./B.W/... w 0 0 8 26",
];

/// The default bench depth.
pub const BENCH_DEPTH: u32 = 9;

/// What a bench run measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchReport {
    /// Nodes over all positions: the same for the same build and depth.
    pub nodes: u64,
    /// Time taken.
    pub time: Duration,
}

/// Searches every bench position to `depth` with one thread and a fresh
/// 16 MiB table, calling `progress` with each position's index and nodes.
pub fn run_bench(depth: u32, mut progress: impl FnMut(usize, u64)) -> BenchReport {
    let start = Instant::now();
    let mut total = 0;
    for (index, fen) in BENCH_POSITIONS.iter().enumerate() {
        let Ok(root) = Position::from_fen(fen, Rules::default()) else {
            continue;
        };
        let tt = match TranspositionTable::new(16) {
            Ok(tt) => Arc::new(tt),
            Err(_) => continue,
        };
        let request = SearchRequest::new(root, &[root.key()], SearchLimits::depth(depth));
        let nodes = request.run(tt).last_info.map_or(0, |info| info.nodes);
        progress(index, nodes);
        total += nodes;
    }
    BenchReport {
        nodes: total,
        time: start.elapsed(),
    }
}
