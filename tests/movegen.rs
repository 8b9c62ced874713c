//! Random games checked move by move against the independent reference:
//! the same legal moves, `is_legal` agreeing with generation for every
//! conceivable move, and notation and position strings that round-trip.

mod common;

use std::collections::HashSet;

use common::perft_cases;
use common::reference::{RefPosition, notation};
use morris::{Move, Position, Square};
use proptest::prelude::*;

/// Every move that can be written: 25 origins (or none) times 24 points
/// times 25 removals (or none).
fn every_conceivable_move() -> Vec<Move> {
    let origins = std::iter::once(None).chain(Square::ALL.map(Some));
    let mut moves = Vec::new();
    for from in origins {
        for to in Square::ALL {
            for removal in std::iter::once(None).chain(Square::ALL.map(Some)) {
                moves.push(Move { from, to, removal });
            }
        }
    }
    moves
}

fn sorted_tokens(pos: &Position) -> Vec<String> {
    let mut tokens: Vec<String> = pos.legal_moves().iter().map(Move::to_string).collect();
    tokens.sort();
    tokens
}

fn reference_tokens(pos: &RefPosition, rules: &common::reference::RefRules) -> Vec<String> {
    let mut tokens: Vec<String> = pos.moves(rules).into_iter().map(notation).collect();
    tokens.sort();
    tokens
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_games_agree_with_the_reference(
        start in 0..perft_cases().len(),
        choices in prop::collection::vec(any::<u16>(), 0..150),
        exhaustive_every in 5usize..12,
    ) {
        let case = &perft_cases()[start];
        let (ref_rules, mut reference) = case.reference();
        let mut pos = case.position().unwrap();
        let everything = every_conceivable_move();
        for (ply, choice) in choices.into_iter().enumerate() {
            let tokens = sorted_tokens(&pos);
            prop_assert_eq!(&tokens, &reference_tokens(&reference, &ref_rules), "{}", pos);
            prop_assert_eq!(tokens.len() as u64, pos.count_legal_moves());
            if !pos.side_to_move_is_short() {
                let again = Position::from_fen(&pos.fen(), pos.rules());
                prop_assert_eq!(again, Ok(pos));
            }
            let mills: HashSet<Move> = pos.legal_mill_moves().into_iter().collect();
            let all: HashSet<Move> = pos.legal_moves().into_iter().collect();
            prop_assert!(mills.is_subset(&all));
            prop_assert!(all.iter().filter(|m| m.removal.is_some()).all(|m| mills.contains(m)));
            if ply % exhaustive_every == 0 {
                let legal: HashSet<Move> = pos.legal_moves().into_iter().collect();
                for &mv in &everything {
                    prop_assert_eq!(pos.is_legal(mv), legal.contains(&mv), "{} in {}", mv, pos);
                }
            }
            if tokens.is_empty() {
                break;
            }
            let token = &tokens[usize::from(choice) % tokens.len()];
            let mv: Move = token.parse().unwrap();
            prop_assert_eq!(&mv.to_string(), token);
            pos.try_play(mv).unwrap();
            prop_assert_eq!(pos.key(), pos.compute_key());
            let ref_move = reference
                .moves(&ref_rules)
                .into_iter()
                .find(|&m| &notation(m) == token)
                .unwrap();
            reference = reference.after(ref_move);
        }
    }
}

#[test]
fn every_move_of_the_start_position_is_a_placement() {
    let pos = Position::startpos();
    let legal: HashSet<Move> = pos.legal_moves().into_iter().collect();
    assert_eq!(legal.len(), 24);
    assert!(
        legal
            .iter()
            .all(|mv| mv.is_placement() && mv.removal.is_none())
    );
    for mv in every_conceivable_move() {
        assert_eq!(pos.is_legal(mv), legal.contains(&mv), "{mv}");
    }
}
