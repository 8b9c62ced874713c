//! Endgame databases: generation speed and probe speed.
//!
//! Run with `cargo bench --bench endgame`. The sectors up to 4-4 are built
//! into a temporary folder first (about ten seconds).

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use morris::Variant;
use morris::search::PlacingSolver;
use morris::solution::retrograde::{SectorRange, build_pair, generate};
use morris::solution::{Database, SectorIndex, sector_position};
use morris::{Bitboard, Position, Rules, Square};

fn folder() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("morris-endgame-bench-{}", std::process::id()));
    generate(
        &dir,
        SectorRange::per_side(Variant::Nine, 4),
        &|_| {},
        |_| {},
    )
    .expect("generation");
    dir
}

/// Positions of the 4-4 sector spread over its indices, as the search
/// would meet them (not canonical).
fn sample_positions() -> Vec<Position> {
    let sector = SectorIndex::new(4, 4);
    (0..sector.len())
        .step_by(997)
        .map(|index| {
            let (mover, other) = sector.decode(index);
            sector_position(Variant::Nine, mover, other)
        })
        .collect()
}

fn bench_generation(c: &mut Criterion) {
    let dir = folder();
    let (smaller, _) = Database::open(&dir).expect("open");
    let mut group = c.benchmark_group("generate");
    group.sample_size(10);
    group.throughput(Throughput::Elements(SectorIndex::new(3, 3).len()));
    group.bench_function("3-3", |b| {
        b.iter(|| build_pair(Variant::Nine, 3, 3, &smaller, &|_| {}))
    });
    let pair = SectorIndex::new(4, 3).len() + SectorIndex::new(3, 4).len();
    group.throughput(Throughput::Elements(pair));
    group.bench_function("4-3 and 3-4", |b| {
        b.iter(|| build_pair(Variant::Nine, 4, 3, &smaller, &|_| {}))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(dir);
}

fn bench_probe(c: &mut Criterion) {
    let dir = folder();
    let positions = sample_positions();
    let mut group = c.benchmark_group("probe");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("cold (open, then probe)", |b| {
        b.iter(|| {
            let (db, _) = Database::open(&dir).expect("open");
            positions
                .iter()
                .filter(|p| db.value(black_box(p)).is_some())
                .count()
        })
    });
    let (db, _) = Database::open(&dir).expect("open");
    group.bench_function("warm", |b| {
        b.iter(|| {
            positions
                .iter()
                .filter(|p| db.value(black_box(p)).is_some())
                .count()
        })
    });
    group.finish();
    let _ = std::fs::remove_dir_all(dir);
}

/// Placing positions whose leaves lie in the sectors up to 4-4: two
/// stones a side on the board and two in hand, White to move, spread over
/// the board by a fixed sequence.
fn placing_positions() -> Vec<Position> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        Square::ALL[(state % 24) as usize]
    };
    let mut positions = Vec::new();
    while positions.len() < 40 {
        let mut stones = [Bitboard::EMPTY; 2];
        for side in [0, 1, 0, 1] {
            let square = next();
            if !(stones[0] | stones[1]).contains(square) {
                stones[side] = stones[side].with(square);
            }
        }
        if stones[0].len() != 2 || stones[1].len() != 2 {
            continue;
        }
        let board = sector_position(Variant::Nine, stones[0], stones[1]).fen();
        let board = board.split(' ').next().expect("a board");
        let fen = format!("{board} w 2 2 0 3");
        positions.push(Position::from_fen(&fen, Rules::default()).expect("a position"));
    }
    positions
}

fn bench_placing(c: &mut Criterion) {
    let dir = folder();
    let (db, _) = Database::open(&dir).expect("open");
    let positions = placing_positions();
    let mut group = c.benchmark_group("end of placing");
    group.sample_size(10);
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("best moves, 4 to place", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|pos| {
                    let mut solver = PlacingSolver::new(&db, None, None);
                    let choice = solver
                        .best_moves(black_box(pos), &pos.legal_moves())
                        .expect("solved");
                    choice.kept.len()
                })
                .sum::<usize>()
        })
    });
    group.finish();
    let _ = std::fs::remove_dir_all(dir);
}

criterion_group!(benches, bench_generation, bench_probe, bench_placing);
criterion_main!(benches);
