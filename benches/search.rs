//! Search speed: fixed-depth searches of the bench positions, and the
//! static evaluation.
//!
//! Run with `cargo bench --bench search`.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use morris::eval::evaluate;
use morris::search::{BENCH_POSITIONS, SearchLimits, SearchRequest, TranspositionTable};
use morris::{Position, Rules};

const DEPTH: u32 = 8;

fn positions() -> Vec<Position> {
    BENCH_POSITIONS
        .iter()
        .map(|fen| Position::from_fen(fen, Rules::default()).expect("bench position"))
        .collect()
}

/// Searches `root` to `DEPTH` with a fresh table; returns the nodes.
fn search(root: Position) -> u64 {
    let tt = Arc::new(TranspositionTable::new(16).expect("table"));
    let request = SearchRequest::new(root, &[root.key()], SearchLimits::depth(DEPTH));
    request.run(tt).last_info.map_or(0, |info| info.nodes)
}

fn bench_search(c: &mut Criterion) {
    let positions = positions();
    let nodes: u64 = positions.iter().map(|&p| search(p)).sum();
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.throughput(Throughput::Elements(nodes));
    group.bench_function(format!("bench-positions/depth-{DEPTH}"), |b| {
        b.iter(|| positions.iter().map(|&p| search(black_box(p))).sum::<u64>())
    });
    group.finish();
}

fn bench_eval(c: &mut Criterion) {
    let positions = positions();
    let mut group = c.benchmark_group("eval");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("evaluate", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| evaluate(black_box(p)))
                .sum::<i32>()
        })
    });
    group.finish();
}

criterion_group!(benches, bench_search, bench_eval);
criterion_main!(benches);
