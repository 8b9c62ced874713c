//! Perft speed, and the hot paths under it: generation, counting, play.
//!
//! Run with `cargo bench --bench perft`. Each perft asserts its count, so
//! a faster but wrong generator cannot post a figure.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use morris::{Position, Rules, perft};

/// (name, position string, depth, nodes); the counts are those of
/// tests/data/positions.perft, from the independent reference.
const CASES: [(&str, &str, u32, u64); 4] = [
    (
        "start",
        ".../.../.../....../.../.../... w 9 9 0 1",
        5,
        5_140_800,
    ),
    (
        "moving",
        "WWB/BW./WB./B.WBW./.B./W.B/... w 0 0 10 20",
        6,
        460_994,
    ),
    (
        "flying-one-side",
        "W../.B./..W/BB..W./.B./B../..B w 0 0 3 30",
        4,
        336_959,
    ),
    (
        "flying-both",
        "W.W/.../BB./....../..B/.W./... b 0 0 0 40",
        3,
        155_358,
    ),
];

fn position(fen: &str) -> Position {
    Position::from_fen(fen, Rules::default()).expect("bench position")
}

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (name, fen, depth, nodes) in CASES {
        let pos = position(fen);
        assert_eq!(perft(&pos, depth), nodes, "{name}");
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(format!("{name}/{depth}"), |b| {
            b.iter(|| perft(black_box(&pos), depth))
        });
    }
    group.finish();
}

fn bench_hot_paths(c: &mut Criterion) {
    let positions: Vec<Position> = CASES.iter().map(|&(_, fen, _, _)| position(fen)).collect();
    let moves: usize = positions.iter().map(|p| p.legal_moves().len()).sum();
    let mut group = c.benchmark_group("movegen");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("legal_moves", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| black_box(p).legal_moves().len())
                .sum::<usize>()
        })
    });
    group.bench_function("count_legal_moves", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| black_box(p).count_legal_moves())
                .sum::<u64>()
        })
    });
    group.throughput(Throughput::Elements(moves as u64));
    group.bench_function("play_every_move", |b| {
        b.iter(|| {
            let mut keys = 0;
            for pos in &positions {
                for &mv in &pos.legal_moves() {
                    let mut next = *black_box(pos);
                    next.play_unchecked(mv);
                    keys ^= next.key();
                }
            }
            keys
        })
    });
    group.finish();
}

criterion_group!(benches, bench_perft, bench_hot_paths);
criterion_main!(benches);
