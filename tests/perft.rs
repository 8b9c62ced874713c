//! Perft against counts from an independent generator (tests/data), and
//! the properties a correct count must have.

mod common;

use common::perft_cases;
use morris::{Position, Symmetry, divide, perft};

/// The most nodes a stored count may have to be checked in the normal test
/// run; the engine counts several hundred million a second, the reference
/// a few million.
const ENGINE_NODE_LIMIT: u64 = 20_000_000;
const REFERENCE_NODE_LIMIT: u64 = 200_000;

#[test]
fn data_file_covers_every_kind_of_position() {
    let cases = perft_cases();
    assert!(cases.len() >= 10);
    for id in [
        "start",
        "moving-all-in-mills",
        "moving-nearly-blocked",
        "flying-one-side",
        "flying-both",
    ] {
        assert!(cases.iter().any(|c| c.id == id), "{id}");
    }
    assert!(cases.iter().all(|c| !c.counts.is_empty()));
}

#[test]
fn start_position_to_depth_5() {
    let expected = [24, 552, 12_144, 255_024, 5_140_800];
    for (depth, &nodes) in (1..).zip(&expected) {
        assert_eq!(perft(&Position::startpos(), depth), nodes, "depth {depth}");
    }
}

#[test]
#[ignore = "about a second in release, longer in debug"]
fn start_position_to_depth_7() {
    assert_eq!(perft(&Position::startpos(), 6), 99_274_176);
    let depth7: u64 = divide(&Position::startpos(), 7)
        .iter()
        .map(|&(_, n)| n)
        .sum();
    assert_eq!(depth7, perft(&Position::startpos(), 7));
}

fn check_engine_counts(limit: u64) {
    for case in perft_cases() {
        let pos = case.position().unwrap();
        for &(depth, nodes) in case.counts.iter().filter(|&&(_, n)| n <= limit) {
            assert_eq!(perft(&pos, depth), nodes, "{} depth {depth}", case.id);
        }
    }
}

#[test]
fn engine_agrees_with_stored_counts() {
    check_engine_counts(ENGINE_NODE_LIMIT);
}

#[test]
#[ignore = "every stored count: a minute"]
fn engine_agrees_with_all_stored_counts() {
    check_engine_counts(u64::MAX);
}

fn check_reference_counts(limit: u64) {
    for case in perft_cases() {
        let (rules, pos) = case.reference();
        for &(depth, nodes) in case.counts.iter().filter(|&&(_, n)| n <= limit) {
            assert_eq!(pos.perft(&rules, depth), nodes, "{} depth {depth}", case.id);
        }
    }
}

#[test]
fn stored_counts_come_from_the_reference() {
    check_reference_counts(REFERENCE_NODE_LIMIT);
}

#[test]
#[ignore = "every stored count by the slow reference: several minutes"]
fn stored_counts_all_come_from_the_reference() {
    check_reference_counts(u64::MAX);
}

#[test]
fn counts_are_invariant_under_the_16_symmetries() {
    for case in perft_cases() {
        let pos = case.position().unwrap();
        let Some(&(depth, nodes)) = case.counts.iter().rev().find(|&&(_, n)| n <= 300_000) else {
            continue;
        };
        for sym in Symmetry::ALL {
            let image = sym.apply_position(&pos);
            assert_eq!(perft(&image, depth), nodes, "{} under {sym:?}", case.id);
        }
    }
}

/// Perft that plays every move, the last ply included, checking the key
/// and that counting agrees with the list at every node.
fn perft_by_list(pos: &Position, depth: u32) -> u64 {
    let moves = pos.legal_moves();
    assert_eq!(moves.len() as u64, pos.count_legal_moves(), "{pos}");
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|&mv| {
            let mut next = *pos;
            next.play_unchecked(mv);
            assert_eq!(next.key(), next.compute_key(), "{pos} {mv}");
            perft_by_list(&next, depth - 1)
        })
        .sum()
}

#[test]
fn bulk_counting_agrees_with_the_move_list() {
    for case in perft_cases() {
        let pos = case.position().unwrap();
        if let Some(&(depth, nodes)) = case.counts.iter().rev().find(|&&(_, n)| n <= 1_000_000) {
            assert_eq!(perft_by_list(&pos, depth), nodes, "{}", case.id);
        }
    }
}

#[test]
fn divide_sums_to_perft_and_lists_each_move_once() {
    for case in perft_cases() {
        let pos = case.position().unwrap();
        let (depth, nodes) = case.counts[case.counts.len().min(3) - 1];
        let split = divide(&pos, depth);
        assert_eq!(
            split.iter().map(|&(_, n)| n).sum::<u64>(),
            nodes,
            "{}",
            case.id
        );
        let mut moves: Vec<String> = split.iter().map(|(mv, _)| mv.to_string()).collect();
        moves.sort();
        moves.dedup();
        assert_eq!(moves.len(), pos.legal_moves().len());
    }
}
