//! What ends a search, and how much of the clock a move may use.

use std::time::{Duration, Instant};

use crate::board::{Color, Move, Position};

/// The clocks of a `go` command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Time left on each clock, White's then Black's.
    pub time: [Option<Duration>; 2],
    /// Increment per move, White's then Black's.
    pub increment: [Duration; 2],
    /// Moves to the next time control, if there is one.
    pub moves_to_go: Option<u32>,
}

/// One condition that ends a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Search this many plies deep.
    Depth(u32),
    /// Search about this many nodes (exactly, with one thread, once depth
    /// 1 is complete).
    Nodes(u64),
    /// Spend this long.
    MoveTime(Duration),
    /// Stop once a win in at most this many own turns is found.
    Mate(u32),
    /// Play to a clock.
    Clock(Clock),
}

/// Everything a `go` asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    /// The search ends at the first of these; with none and neither
    /// `infinite` nor `ponder`, it ends at [`SearchLimits::DEFAULT_DEPTH`].
    pub limits: Vec<Limit>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Search until `stop` or `ponderhit`; after `ponderhit` the limits apply.
    pub ponder: bool,
    /// Consider only these root moves (all when empty).
    pub search_moves: Vec<Move>,
}

impl SearchLimits {
    /// The depth of a `go` that names no limit.
    pub const DEFAULT_DEPTH: u32 = 12;

    /// A search to a fixed depth.
    pub fn depth(depth: u32) -> SearchLimits {
        SearchLimits {
            limits: vec![Limit::Depth(depth)],
            ..SearchLimits::default()
        }
    }

    /// The smallest value of the limits `pick` accepts.
    fn smallest<T: Ord>(&self, pick: impl Fn(&Limit) -> Option<T>) -> Option<T> {
        self.limits.iter().filter_map(pick).min()
    }

    /// The depth limit, if any; the default depth when nothing limits the search.
    pub fn max_depth(&self) -> Option<u32> {
        match self.smallest(|l| {
            if let Limit::Depth(d) = l {
                Some(*d)
            } else {
                None
            }
        }) {
            Some(d) => Some(d),
            None if self.limits.is_empty() && !self.infinite && !self.ponder => {
                Some(SearchLimits::DEFAULT_DEPTH)
            }
            None => None,
        }
    }

    /// The node limit, if any.
    pub fn max_nodes(&self) -> Option<u64> {
        self.smallest(|l| {
            if let Limit::Nodes(n) = l {
                Some(*n)
            } else {
                None
            }
        })
    }

    /// The mate limit in own turns, if any.
    pub fn mate(&self) -> Option<u32> {
        self.smallest(|l| {
            if let Limit::Mate(n) = l {
                Some(*n)
            } else {
                None
            }
        })
    }

    /// Whether the search plays to a clock or a move time (and so may stop
    /// early when the move is forced).
    pub fn is_timed(&self) -> bool {
        self.limits
            .iter()
            .any(|l| matches!(l, Limit::MoveTime(_) | Limit::Clock(_)))
    }
}

/// When a search should stop, from its limits and the clock.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TimeManager {
    start: Instant,
    optimum: Option<Duration>,
    maximum: Option<Duration>,
}

/// The number of moves a clock is shared over when `movestogo` is not given.
const DEFAULT_MOVES_TO_GO: u32 = 25;

/// The moves after placing a clock is kept for when the databases answer
/// them (each a probe, not a search): two, for safety.
const SOLVED_MOVING_PHASE_MOVES: u32 = 2;

/// The moves `root`'s side to move shares its clock over when `movestogo`
/// is not given: with the moving phase solved, its placements left and a
/// few more, so that the time the databases save goes to the placements,
/// where the game is decided (the increments come on top).
fn moves_to_go(root: &Position, solved_after_placing: bool) -> u32 {
    let placements = u32::from(root.in_hand(root.side_to_move()));
    if solved_after_placing && placements > 0 {
        placements + SOLVED_MOVING_PHASE_MOVES
    } else {
        DEFAULT_MOVES_TO_GO
    }
}

/// How much of a move's even share of the clock `root` deserves, in
/// percent. Games are decided at the end of placing and in the first
/// slides after it, when a side is blocked or wins the race to a mill; the
/// first placements and a thinned-out endgame need less. With the moving
/// phase solved, every placement is the engine's to judge and gets the
/// same, larger share.
fn phase_percent(root: &Position, solved_after_placing: bool) -> u32 {
    let side_stones = u32::from(root.rules().variant.stones());
    let in_hand = root.stones_to_place();
    let on_board = Color::ALL
        .iter()
        .map(|&c| root.stones(c).len())
        .sum::<u32>();
    if in_hand > side_stones && !solved_after_placing {
        60
    } else if in_hand > 0 || on_board + 4 >= 2 * side_stones {
        150
    } else {
        100
    }
}

impl TimeManager {
    /// The time budget for the side to move in `root` under `limits`,
    /// started at `start`, keeping `overhead` per move in reserve;
    /// `solved_after_placing` when the databases hold every position the
    /// placing can end in.
    pub(crate) fn new(
        start: Instant,
        limits: &SearchLimits,
        root: &Position,
        overhead: Duration,
        solved_after_placing: bool,
    ) -> TimeManager {
        let side = root.side_to_move();
        let mut optimum: Option<Duration> = None;
        let mut maximum: Option<Duration> = None;
        let mut tighten = |soft: Option<Duration>, hard: Duration| {
            if let Some(soft) = soft {
                optimum = Some(optimum.map_or(soft, |o| o.min(soft)));
            }
            maximum = Some(maximum.map_or(hard, |m| m.min(hard)));
        };
        let floor = Duration::from_millis(1);
        for limit in &limits.limits {
            match *limit {
                // A move time is spent whole, unless the move is forced.
                Limit::MoveTime(t) => tighten(None, t.saturating_sub(overhead).max(floor)),
                Limit::Clock(clock) => {
                    // A clock given only for the other side leaves this
                    // side no time of its own: it moves at once rather than
                    // searching without end.
                    let left = clock.time[side.index()].unwrap_or(Duration::ZERO);
                    let increment = clock.increment[side.index()];
                    let usable = left.saturating_sub(overhead).max(floor);
                    let moves = clock
                        .moves_to_go
                        .unwrap_or_else(|| moves_to_go(root, solved_after_placing))
                        .clamp(1, 50);
                    let share = usable / moves * phase_percent(root, solved_after_placing) / 100
                        + increment * 3 / 4;
                    let soft = share.min(usable / 2).max(floor);
                    let hard = (soft * 4).min(usable * 4 / 5).max(floor);
                    tighten(Some(soft), hard);
                }
                Limit::Depth(_) | Limit::Nodes(_) | Limit::Mate(_) => {}
            }
        }
        TimeManager {
            start,
            optimum,
            maximum,
        }
    }

    /// Time since the search started.
    pub(crate) fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// The time a move should take, if the search plays to a clock.
    pub(crate) fn optimum(&self) -> Option<Duration> {
        self.optimum
    }

    /// The time a move may never exceed, if the search is timed.
    pub(crate) fn maximum(&self) -> Option<Duration> {
        self.maximum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(ms: u64, inc: u64, moves_to_go: Option<u32>) -> SearchLimits {
        SearchLimits {
            limits: vec![Limit::Clock(Clock {
                time: [
                    Some(Duration::from_millis(ms)),
                    Some(Duration::from_millis(1)),
                ],
                increment: [Duration::from_millis(inc), Duration::ZERO],
                moves_to_go,
            })],
            ..SearchLimits::default()
        }
    }

    impl SearchLimits {
        fn with_only_white_clock(mut self) -> SearchLimits {
            for limit in &mut self.limits {
                if let Limit::Clock(clock) = limit {
                    clock.time[Color::Black.index()] = None;
                }
            }
            self
        }
    }

    fn white_to_move() -> Position {
        Position::startpos()
    }

    fn black_to_move() -> Position {
        let mut pos = Position::startpos();
        pos.play_unchecked("d6".parse().unwrap());
        pos
    }

    fn nine(fen: &str) -> Position {
        Position::from_fen(fen, crate::board::rules::Rules::default()).unwrap()
    }

    #[test]
    fn the_end_of_placing_gets_more_time_than_its_start() {
        let limits = clock(60_000, 0, None);
        let optimum = |pos: &Position| {
            TimeManager::new(Instant::now(), &limits, pos, Duration::ZERO, false)
                .optimum()
                .unwrap()
        };
        let start = optimum(&white_to_move());
        // Ply 16: two stones each in hand.
        let late_placing = optimum(&nine("WBW/BWB/W.B/W....B/.W./B.B/.W. w 2 2 0 9"));
        // Four stones each after many removals: an ordinary share.
        let endgame = optimum(&nine("W../.B./..W/B....W/.B./.W./..B w 0 0 5 40"));
        assert!(late_placing > endgame, "{late_placing:?} {endgame:?}");
        assert!(endgame > start, "{endgame:?} {start:?}");
    }

    #[test]
    fn with_the_moving_phase_solved_the_clock_goes_to_the_placements() {
        // White places nine stones on a 10 s clock, spending each move's
        // optimum; the databases then answer its slides.
        let spend = |solved: bool| {
            let mut left = Duration::from_secs(10);
            let mut spent = Vec::new();
            let mut pos = Position::startpos();
            for _ in 0..9 {
                let limits = clock(left.as_millis() as u64, 0, None);
                let optimum =
                    TimeManager::new(Instant::now(), &limits, &pos, Duration::ZERO, solved)
                        .optimum()
                        .unwrap();
                left -= optimum;
                spent.push(optimum);
                for _ in 0..2 {
                    let first = pos.legal_moves()[0];
                    pos.play_unchecked(first);
                }
            }
            (spent, left)
        };
        let (even, even_left) = spend(false);
        let (placing, placing_left) = spend(true);
        for (e, p) in even.iter().zip(&placing) {
            assert!(p > e, "{placing:?} against {even:?}");
        }
        // Most of the clock goes to the placements, even spending each
        // optimum whole (searches usually stop sooner), and some stays.
        assert!(placing_left < even_left);
        assert!(placing_left < Duration::from_secs(2), "{placing_left:?}");
        assert!(
            placing_left > Duration::from_millis(500),
            "{placing_left:?}"
        );
        // Once placed, a side's share is the ordinary one.
        let moving = nine("W../.B./..W/B....W/.B./.W./..B w 0 0 5 40");
        let limits = clock(5_000, 0, None);
        let share = |solved| {
            TimeManager::new(Instant::now(), &limits, &moving, Duration::ZERO, solved).optimum()
        };
        assert_eq!(share(true), share(false));
    }

    #[test]
    fn clock_budget_stays_inside_the_time_left() {
        let overhead = Duration::from_millis(30);
        for (ms, inc, mtg) in [
            (60_000, 0, None),
            (1_000, 100, None),
            (50, 0, None),
            (10_000, 0, Some(1)),
        ] {
            let tm = TimeManager::new(
                Instant::now(),
                &clock(ms, inc, mtg),
                &white_to_move(),
                overhead,
                false,
            );
            let (optimum, maximum) = (tm.optimum().unwrap(), tm.maximum().unwrap());
            assert!(optimum <= maximum);
            assert!(
                maximum
                    <= Duration::from_millis(ms)
                        .saturating_sub(overhead)
                        .max(Duration::from_millis(1))
            );
        }
    }

    #[test]
    fn move_time_keeps_the_overhead() {
        let limits = SearchLimits {
            limits: vec![Limit::MoveTime(Duration::from_millis(1000))],
            ..SearchLimits::default()
        };
        let tm = TimeManager::new(
            Instant::now(),
            &limits,
            &black_to_move(),
            Duration::from_millis(30),
            false,
        );
        assert_eq!(tm.maximum(), Some(Duration::from_millis(970)));
        assert_eq!(tm.optimum(), None);
    }

    #[test]
    fn a_clock_for_the_other_side_only_leaves_no_time() {
        // White's clock alone, Black to move: Black must not search forever.
        let tm = TimeManager::new(
            Instant::now(),
            &clock(60_000, 0, None).with_only_white_clock(),
            &black_to_move(),
            Duration::from_millis(30),
            false,
        );
        assert_eq!(tm.maximum(), Some(Duration::from_millis(1)));
    }

    #[test]
    fn no_limit_means_the_default_depth() {
        assert_eq!(
            SearchLimits::default().max_depth(),
            Some(SearchLimits::DEFAULT_DEPTH)
        );
        let infinite = SearchLimits {
            infinite: true,
            ..SearchLimits::default()
        };
        assert_eq!(infinite.max_depth(), None);
        assert_eq!(SearchLimits::depth(3).max_depth(), Some(3));
    }
}
