//! The state of a game between turns, and how a turn changes it.

use std::fmt;

use crate::board::setup::READING_ORDER;
use crate::board::{
    Bitboard, Color, FenError, IllegalMoveError, Move, Phase, Rules, Setup, zobrist,
};

/// A position: the stones, the hands, the side to move, the counters of
/// the position string, and the rules it is played under.
///
/// `Position` is `Copy` and small: search and perft copy it and play the
/// move on the copy, so no turn is ever undone.
///
/// ```
/// # use morris::{Position, Move, Square};
/// let mut pos = Position::startpos();
/// pos.try_play("d6".parse()?)?;
/// assert_eq!(pos.to_string(), ".../.W./.../....../.../.../... b 8 9 1 1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    stones: [Bitboard; 2],
    in_hand: [u8; 2],
    side_to_move: Color,
    rules: Rules,
    plies_since_removal: u32,
    fullmove_number: u32,
    key: u64,
}

impl Position {
    /// The start position of a game under `rules`: an empty board, every
    /// stone in hand, White to move.
    pub fn new(rules: Rules) -> Position {
        let stones = rules.variant.stones();
        Position::from_parts([Bitboard::EMPTY; 2], [stones; 2], Color::White, rules, 0, 1)
    }

    /// The start position of Nine Men's Morris with the default options.
    pub fn startpos() -> Position {
        Position::new(Rules::default())
    }

    /// Reads a position string (docs/RULES.md) and checks that the position it
    /// describes can occur under `rules`.
    ///
    /// # Errors
    ///
    /// [`FenError::Parse`] if the text is malformed, [`FenError::Setup`] if
    /// the position is impossible; both name the field at fault.
    pub fn from_fen(fen: &str, rules: Rules) -> Result<Position, FenError> {
        let setup: Setup = fen.parse()?;
        Ok(Position::from_setup(&setup, rules)?)
    }

    /// Builds a position from checked parts and computes its key.
    pub(crate) fn from_parts(
        stones: [Bitboard; 2],
        in_hand: [u8; 2],
        side_to_move: Color,
        rules: Rules,
        plies_since_removal: u32,
        fullmove_number: u32,
    ) -> Position {
        let mut pos = Position {
            stones,
            in_hand,
            side_to_move,
            rules,
            plies_since_removal,
            fullmove_number,
            key: 0,
        };
        pos.key = pos.compute_key();
        pos
    }

    /// The same position under an N-move rule of `moves` moves a side (0
    /// for none), which changes nothing else of it, its key included.
    pub(crate) fn with_n_move_rule(&self, moves: u16) -> Position {
        let rules = Rules {
            n_move_rule: moves,
            ..self.rules
        };
        Position { rules, ..*self }
    }

    /// The stones of `color` on the board.
    #[inline]
    pub fn stones(&self, color: Color) -> Bitboard {
        self.stones[color.index()]
    }

    /// Every occupied point.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.stones[0] | self.stones[1]
    }

    /// Every empty point.
    #[inline]
    pub fn empty(&self) -> Bitboard {
        !self.occupied()
    }

    /// The stones `color` still has to place.
    #[inline]
    pub fn in_hand(&self, color: Color) -> u8 {
        self.in_hand[color.index()]
    }

    /// The stones both sides still have to place.
    #[inline]
    pub fn stones_to_place(&self) -> u32 {
        u32::from(self.in_hand[0]) + u32::from(self.in_hand[1])
    }

    /// Whether every turn places a stone until none is left in hand:
    /// stones are in hand, in a variant where a side with stones in hand
    /// may not slide (so that no position can come back).
    #[inline]
    pub fn in_placing_phase(&self) -> bool {
        self.stones_to_place() > 0 && !self.rules.variant.may_slide_while_placing()
    }

    /// The stones `color` has on the board and in hand together.
    #[inline]
    pub fn stone_count(&self, color: Color) -> u32 {
        self.stones(color).len() + u32::from(self.in_hand(color))
    }

    /// The side whose turn it is.
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    /// The rules the position is played under.
    #[inline]
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Plies played since the last removal (or the start), for the N-move rule.
    #[inline]
    pub fn plies_since_removal(&self) -> u32 {
        self.plies_since_removal
    }

    /// The move number: 1 at the start, one more after each Black turn.
    #[inline]
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    /// The Zobrist key of the stones, the hands and the side to move: the
    /// identity of a position for repetitions and the transposition table.
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The key computed from scratch; always equal to [`Position::key`].
    pub fn compute_key(&self) -> u64 {
        let mut key = 0;
        for color in Color::ALL {
            for sq in self.stones(color) {
                key ^= zobrist::stone(color, sq);
            }
            key ^= zobrist::in_hand(color, self.in_hand(color));
        }
        if self.side_to_move == Color::Black {
            key ^= zobrist::black_to_move();
        }
        key
    }

    /// What `color` does on its turn.
    pub fn phase(&self, color: Color) -> Phase {
        if self.in_hand(color) > 0 {
            Phase::Placing
        } else if self.can_fly(color) {
            Phase::Flying
        } else {
            Phase::Moving
        }
    }

    /// Whether `color` flies: flying is on, it has nothing in hand and
    /// exactly three stones on the board.
    #[inline]
    pub fn can_fly(&self, color: Color) -> bool {
        self.rules.flying && self.in_hand(color) == 0 && self.stones(color).len() == 3
    }

    /// Plays a legal move.
    ///
    /// # Errors
    ///
    /// [`IllegalMoveError`] naming the reason if the move is not legal;
    /// the position is then unchanged.
    pub fn try_play(&mut self, mv: Move) -> Result<(), IllegalMoveError> {
        self.check_move(mv)
            .map_err(|reason| IllegalMoveError { mv, reason })?;
        self.play_unchecked(mv);
        Ok(())
    }

    /// Plays a move known to be legal.
    ///
    /// # Panics
    ///
    /// If the move is not legal.
    pub fn play(&mut self, mv: Move) {
        if let Err(err) = self.try_play(mv) {
            panic!("{err} in {self}");
        }
    }

    /// Plays a move without checking it: the fast path for moves that come
    /// from [`Position::legal_moves`].
    ///
    /// An illegal move leaves the position inconsistent, and one that
    /// places from an empty hand may panic.
    #[inline]
    pub fn play_unchecked(&mut self, mv: Move) {
        let us = self.side_to_move;
        let them = us.opponent();
        match mv.from {
            Some(from) => {
                self.stones[us.index()] ^= Bitboard::from(from) | mv.to.into();
                self.key ^= zobrist::stone(us, from);
            }
            None => {
                let hand = self.in_hand[us.index()];
                self.key ^= zobrist::in_hand(us, hand) ^ zobrist::in_hand(us, hand - 1);
                self.in_hand[us.index()] = hand - 1;
                self.stones[us.index()] |= mv.to.into();
            }
        }
        self.key ^= zobrist::stone(us, mv.to);
        match mv.removal {
            Some(removal) => {
                self.stones[them.index()] = self.stones[them.index()].without(removal);
                self.key ^= zobrist::stone(them, removal);
                self.plies_since_removal = 0;
            }
            None => self.plies_since_removal = self.plies_since_removal.saturating_add(1),
        }
        if us == Color::Black {
            self.fullmove_number = self.fullmove_number.saturating_add(1);
        }
        self.side_to_move = them;
        self.key ^= zobrist::black_to_move();
    }

    /// The position string (docs/RULES.md) of this position.
    pub fn fen(&self) -> String {
        Setup::from(self).to_string()
    }

    /// The board drawn in text: `W` and `B` for the stones, `.` for an
    /// empty point, ranks and files along the edges.
    pub fn diagram(&self) -> String {
        const TEMPLATE: &str = "\
7 *-----------*-----------*
  |           |           |
6 |   *-------*-------*   |
  |   |       |       |   |
5 |   |   *---*---*   |   |
  |   |   |       |   |   |
4 *---*---*       *---*---*
  |   |   |       |   |   |
3 |   |   *---*---*   |   |
  |   |       |       |   |
2 |   *-------*-------*   |
  |           |           |
1 *-----------*-----------*
  a   b   c   d   e   f   g
";
        // The points appear in the template in reading order, the order of
        // the position string.
        let mut points = READING_ORDER.iter().peekable();
        TEMPLATE
            .chars()
            .map(|c| match points.next_if(|_| c == '*') {
                Some(&sq) if self.stones(Color::White).contains(sq) => 'W',
                Some(&sq) if self.stones(Color::Black).contains(sq) => 'B',
                Some(_) => '.',
                None => c,
            })
            .collect()
    }
}

impl fmt::Display for Position {
    /// Writes the position string.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Setup::from(self).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::types::Square;

    #[test]
    fn playing_updates_key_hands_and_counters() {
        let mut pos = Position::startpos();
        for token in ["d6", "d2", "b4"] {
            pos.play(token.parse().unwrap());
            assert_eq!(pos.key(), pos.compute_key());
        }
        assert_eq!(pos.fen(), ".../.W./.../.W..../.../.B./... b 7 8 3 2");
        assert_eq!(pos.in_hand(Color::White), 7);
        assert_eq!(pos.stone_count(Color::Black), 9);
        assert_eq!(pos.phase(Color::Black), Phase::Placing);
        assert_eq!(
            pos.stones(Color::White),
            Bitboard::from_squares(&[Square::D6, Square::B4])
        );
    }

    #[test]
    fn transpositions_share_a_key() {
        let mut a = Position::startpos();
        let mut b = Position::startpos();
        for token in ["d6", "d2", "b4", "f4"] {
            a.play(token.parse().unwrap());
        }
        for token in ["b4", "f4", "d6", "d2"] {
            b.play(token.parse().unwrap());
        }
        assert_eq!(a.key(), b.key());
        assert_ne!(a.key(), Position::startpos().key());
    }

    #[test]
    fn diagram_shows_the_stones() {
        let mut pos = Position::startpos();
        pos.play("a7".parse().unwrap());
        pos.play("g1".parse().unwrap());
        let diagram = pos.diagram();
        assert!(
            diagram.starts_with("7 W-----------.-----------.\n"),
            "{diagram}"
        );
        assert!(
            diagram.contains("\n1 .-----------.-----------B\n"),
            "{diagram}"
        );
        assert_eq!(diagram.matches('.').count(), 22);
    }
}
