//! Legal move generation, counting and checking.

use thiserror::Error;

use crate::board::{Bitboard, Color, Move, MoveList, Position, Square, Tables};

impl Position {
    /// Whether the side to move has fewer than three stones on the board
    /// and in hand together, and so has lost.
    #[inline]
    pub fn side_to_move_is_short(&self) -> bool {
        self.stone_count(self.side_to_move()) < 3
    }

    /// The opposing stones a mill closed now may remove: those in no mill,
    /// or all of them when every one stands in a mill.
    #[inline]
    pub fn removable(&self) -> Bitboard {
        self.tables()
            .removable(self.stones(self.side_to_move().opponent()))
    }

    #[inline]
    fn tables(&self) -> &'static Tables {
        self.rules().variant.tables()
    }

    /// Calls `action(from, to, closes_mill)` for every legal action of the
    /// side to move, removals not yet chosen.
    #[inline]
    fn for_each_action(&self, mut action: impl FnMut(Option<Square>, Square, bool)) {
        let us = self.side_to_move();
        let own = self.stones(us);
        let empty = self.empty();
        let tables = self.tables();
        if self.in_hand(us) > 0 {
            let closing = tables.closing_points(own, empty);
            for to in empty {
                action(None, to, closing.contains(to));
            }
            if !self.rules().variant.may_slide_while_placing() {
                return;
            }
        } else if self.can_fly(us) {
            for from in own {
                let closing = tables.closing_points(own.without(from), empty);
                for to in empty {
                    action(Some(from), to, closing.contains(to));
                }
            }
            return;
        }
        for from in own {
            let rest = own.without(from);
            for to in tables.neighbors(from) & empty {
                action(Some(from), to, tables.closes_mill(rest, to));
            }
        }
    }

    /// Every legal move of the side to move; none when it has lost by
    /// material or is blocked. Draw rules are not looked at.
    ///
    /// ```
    /// # use morris::Position;
    /// assert_eq!(Position::startpos().legal_moves().len(), 24);
    /// ```
    pub fn legal_moves(&self) -> MoveList {
        self.generate(false)
    }

    /// The points where `color`, if it were its turn, would close a mill:
    /// by placing, flying, or sliding a stone of another line there.
    pub fn mill_threats(&self, color: Color) -> Bitboard {
        let own = self.stones(color);
        let empty = self.empty();
        let tables = self.tables();
        if self.in_hand(color) > 0 || self.can_fly(color) {
            return tables.closing_points(own, empty);
        }
        let mut points = Bitboard::EMPTY;
        for &mill in tables.mills() {
            let gap = mill - own;
            if gap.len() == 1 && empty.is_superset(gap) {
                if let Some(point) = gap.first() {
                    if !(tables.neighbors(point) & (own - mill)).is_empty() {
                        points |= gap;
                    }
                }
            }
        }
        points
    }

    /// The legal moves that close a mill, one per stone each may remove.
    pub fn legal_mill_moves(&self) -> MoveList {
        self.generate(true)
    }

    /// The legal moves that begin with `action` (its origin and
    /// destination): the ways to finish a turn given without its removal.
    pub fn completions(&self, action: Move) -> MoveList {
        let mut moves = self.legal_moves();
        moves.retain(|mv| mv.from == action.from && mv.to == action.to);
        moves
    }

    fn generate(&self, mills_only: bool) -> MoveList {
        let mut moves = MoveList::new();
        if self.side_to_move_is_short() {
            return moves;
        }
        let removable = self.removable();
        self.for_each_action(|from, to, closes_mill| {
            let action = Move {
                from,
                to,
                removal: None,
            };
            if closes_mill && !removable.is_empty() {
                moves.extend(removable.iter().map(|sq| action.removing(sq)));
            } else if closes_mill || !mills_only {
                moves.push(action);
            }
        });
        moves
    }

    /// The number of legal moves, as `legal_moves().len()`, counted without
    /// building the list (the last ply of perft).
    pub fn count_legal_moves(&self) -> u64 {
        if self.side_to_move_is_short() {
            return 0;
        }
        let us = self.side_to_move();
        let own = self.stones(us);
        let empty = self.empty();
        let tables = self.tables();
        // A mill-closing action is one move per removable stone, or one
        // move when the opponent has no stone on the board.
        let extra_per_mill = u64::from(self.removable().len().max(1) - 1);
        let actions_and_mills =
            |actions: u32, mills: u32| u64::from(actions) + u64::from(mills) * extra_per_mill;
        let mut count = 0;
        if self.in_hand(us) > 0 {
            let closing = tables.closing_points(own, empty);
            count += actions_and_mills(empty.len(), closing.len());
            if !self.rules().variant.may_slide_while_placing() {
                return count;
            }
        } else if self.can_fly(us) {
            for from in own {
                let closing = tables.closing_points(own.without(from), empty);
                count += actions_and_mills(empty.len(), closing.len());
            }
            return count;
        }
        for from in own {
            let rest = own.without(from);
            let targets = tables.neighbors(from) & empty;
            let mills = targets
                .iter()
                .filter(|&to| tables.closes_mill(rest, to))
                .count();
            count += actions_and_mills(targets.len(), mills as u32);
        }
        count
    }

    /// Whether the side to move may play `mv` now. Agrees with
    /// [`Position::legal_moves`].
    #[inline]
    pub fn is_legal(&self, mv: Move) -> bool {
        self.check_move(mv).is_ok()
    }

    /// Why `mv` may not be played now, if it may not.
    ///
    /// # Errors
    ///
    /// The first rule the move breaks.
    pub fn check_move(&self, mv: Move) -> Result<(), IllegalReason> {
        if self.side_to_move_is_short() {
            return Err(IllegalReason::GameOver);
        }
        let us = self.side_to_move();
        let own = self.stones(us);
        let theirs = self.stones(us.opponent());
        let empty = self.empty();
        let tables = self.tables();
        let rest = match mv.from {
            None if self.in_hand(us) == 0 => return Err(IllegalReason::NothingInHand),
            None => own,
            Some(_) if self.in_hand(us) > 0 && !self.rules().variant.may_slide_while_placing() => {
                return Err(IllegalReason::MustPlace);
            }
            Some(from) if !own.contains(from) => return Err(IllegalReason::NotOwnStone(from)),
            Some(from) => own.without(from),
        };
        if !empty.contains(mv.to) {
            return Err(IllegalReason::Occupied(mv.to));
        }
        if let Some(from) = mv.from {
            if !self.can_fly(us) && !tables.neighbors(from).contains(mv.to) {
                return Err(IllegalReason::NotNeighbor { from, to: mv.to });
            }
        }
        match (tables.closes_mill(rest, mv.to), mv.removal) {
            (false, None) => Ok(()),
            (false, Some(_)) => Err(IllegalReason::NoMill),
            (true, None) if theirs.is_empty() => Ok(()),
            (true, None) => Err(IllegalReason::MissingRemoval),
            (true, Some(removal)) if !theirs.contains(removal) => {
                Err(IllegalReason::NotOpponentStone(removal))
            }
            (true, Some(removal)) if !self.removable().contains(removal) => {
                Err(IllegalReason::ProtectedStone(removal))
            }
            (true, Some(_)) => Ok(()),
        }
    }
}

/// A well-formed move that is not legal in the position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("illegal move {mv}: {reason}")]
pub struct IllegalMoveError {
    /// The move that was refused.
    pub mv: Move,
    /// Why it was refused.
    pub reason: IllegalReason,
}

/// Why a move is not legal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum IllegalReason {
    /// The game is already over.
    #[error("the game is over")]
    GameOver,
    /// A placement by a side with no stones in hand.
    #[error("no stones in hand to place")]
    NothingInHand,
    /// A slide by a side that must place.
    #[error("stones in hand must be placed first")]
    MustPlace,
    /// The origin is not a stone of the side to move.
    #[error("no own stone on {0}")]
    NotOwnStone(Square),
    /// The destination is occupied.
    #[error("{0} is occupied")]
    Occupied(Square),
    /// A slide to a point that is not a neighbour, by a side that cannot fly.
    #[error("{to} is not next to {from}")]
    NotNeighbor {
        /// The stone's point.
        from: Square,
        /// The point it was sent to.
        to: Square,
    },
    /// A removal named by a turn that closes no mill.
    #[error("no mill is closed, so nothing may be removed")]
    NoMill,
    /// A mill was closed but no stone named for removal.
    #[error("the turn closes a mill: name the stone to remove (x<point>)")]
    MissingRemoval,
    /// The removed point does not hold an opposing stone.
    #[error("no opposing stone on {0}")]
    NotOpponentStone(Square),
    /// The removed stone stands in a mill while others do not.
    #[error("{0} stands in a mill and other stones do not")]
    ProtectedStone(Square),
}
