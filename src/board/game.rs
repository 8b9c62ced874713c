//! Refereeing: how a game ends, judged over its whole history.

use std::fmt;

use crate::board::{Color, FullBoard, IllegalMoveError, IllegalReason, Move, Position};

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// One side won.
    Win {
        /// The side that won.
        winner: Color,
        /// Why the other side lost.
        reason: WinReason,
    },
    /// Nobody won.
    Draw {
        /// Which rule drew the game.
        reason: DrawReason,
    },
}

/// Why a side lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WinReason {
    /// The loser has fewer than three stones on the board and in hand.
    TooFewStones,
    /// The loser must move and has no legal move.
    Blocked,
    /// The board filled up with nothing left in hand, under the rule that
    /// White, who placed first, then loses.
    FullBoard,
}

/// Which rule drew a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawReason {
    /// Twelve Men's Morris: the board filled up with nothing left in hand.
    FullBoard,
    /// The same position occurred for the third time.
    Repetition,
    /// The N-move rule: that many moves by each side without a removal.
    NMoveRule,
}

impl Outcome {
    /// The winner, if the game was not drawn.
    pub fn winner(self) -> Option<Color> {
        match self {
            Outcome::Win { winner, .. } => Some(winner),
            Outcome::Draw { .. } => None,
        }
    }
}

impl fmt::Display for Outcome {
    /// Writes `white wins (black is blocked)`, `draw (threefold repetition)`
    /// and the like: the text of the protocol's `game over` line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Outcome::Win { winner, reason } => {
                let loser = winner.opponent().name();
                let why = match reason {
                    WinReason::TooFewStones => "has fewer than three stones",
                    WinReason::Blocked => "is blocked",
                    WinReason::FullBoard => "placed first on a full board",
                };
                write!(f, "{} wins ({loser} {why})", winner.name())
            }
            Outcome::Draw { reason } => f.write_str(match reason {
                DrawReason::FullBoard => "draw (full board)",
                DrawReason::Repetition => "draw (threefold repetition)",
                DrawReason::NMoveRule => "draw (n-move rule)",
            }),
        }
    }
}

impl Position {
    /// The end of the game by the rules that need no history, checked in
    /// the order of docs/RULES.md: fewer than three stones, full board, blocked.
    pub fn terminal_outcome(&self) -> Option<Outcome> {
        let us = self.side_to_move();
        let loss = |reason| {
            Some(Outcome::Win {
                winner: us.opponent(),
                reason,
            })
        };
        if self.side_to_move_is_short() {
            return loss(WinReason::TooFewStones);
        }
        let rules = self.rules();
        if rules.variant.can_fill_the_board()
            && self.empty().is_empty()
            && self.in_hand(us) == 0
            && self.in_hand(us.opponent()) == 0
        {
            return Some(match rules.full_board {
                FullBoard::Draw => Outcome::Draw {
                    reason: DrawReason::FullBoard,
                },
                FullBoard::WhiteLoses => Outcome::Win {
                    winner: Color::Black,
                    reason: WinReason::FullBoard,
                },
            });
        }
        if self.count_legal_moves() == 0 {
            return loss(WinReason::Blocked);
        }
        None
    }

    /// Whether the N-move rule has drawn the game.
    pub fn n_move_rule_reached(&self) -> bool {
        self.rules()
            .draw_plies()
            .is_some_and(|plies| self.plies_since_removal() >= plies)
    }
}

/// A game: its start position and the moves played, with the keys of every
/// position reached, to referee it by all the rules including repetition.
///
/// ```
/// # use morris::{Game, Position};
/// let mut game = Game::new(Position::startpos());
/// for token in ["d6", "d2", "b4"] {
///     game.try_play(token.parse()?)?;
/// }
/// assert_eq!(game.outcome(), None);
/// assert_eq!(game.moves().len(), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    position: Position,
    moves: Vec<Move>,
    keys: Vec<u64>,
}

impl Game {
    /// A game that starts from `start`, which counts as its first occurrence.
    pub fn new(start: Position) -> Game {
        Game {
            start,
            position: start,
            moves: Vec::new(),
            keys: vec![start.key()],
        }
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The keys of every position of the game, the start first and the
    /// current one last.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// Plays `mv` if the game is not over and the move is legal.
    ///
    /// # Errors
    ///
    /// [`IllegalMoveError`] if the game is over or the move illegal; the
    /// game is then unchanged.
    pub fn try_play(&mut self, mv: Move) -> Result<(), IllegalMoveError> {
        if self.outcome().is_some() {
            return Err(IllegalMoveError {
                mv,
                reason: IllegalReason::GameOver,
            });
        }
        self.position.try_play(mv)?;
        self.moves.push(mv);
        self.keys.push(self.position.key());
        Ok(())
    }

    /// How often the current position has occurred, this time included.
    pub fn repetitions(&self) -> usize {
        let key = self.position.key();
        self.keys.iter().filter(|&&k| k == key).count()
    }

    /// How the game has ended, if it has: every rule of docs/RULES.md, in its
    /// order (fewer than three stones, full board, blocked, repetition,
    /// N-move rule).
    pub fn outcome(&self) -> Option<Outcome> {
        self.position.terminal_outcome().or_else(|| {
            let draw = |reason| Some(Outcome::Draw { reason });
            if self.repetitions() >= 3 {
                draw(DrawReason::Repetition)
            } else if self.position.n_move_rule_reached() {
                draw(DrawReason::NMoveRule)
            } else {
                None
            }
        })
    }
}
