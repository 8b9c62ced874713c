//! A game's clock: a time for each turn, or a time for the whole game,
//! each side's running only while it is to move. The time of the turn is
//! taken when a move is made; a side whose time ran out has lost.

use std::time::{Duration, Instant};

use morris::Color;

/// How a clock counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockKind {
    /// The time is each turn's, afresh every turn.
    Turn,
    /// The time is each side's for the whole game.
    Game,
}

impl ClockKind {
    /// The kind's name on the page: `turn` or `game`.
    pub fn name(self) -> &'static str {
        match self {
            ClockKind::Turn => "turn",
            ClockKind::Game => "game",
        }
    }

    /// The kind of a page's name.
    pub fn from_name(name: &str) -> Option<ClockKind> {
        [ClockKind::Turn, ClockKind::Game]
            .into_iter()
            .find(|kind| kind.name() == name)
    }
}

/// A day, the unit of a correspondence game's clock.
pub const DAY: Duration = Duration::from_secs(24 * 3600);

/// The most days a move a correspondence game's clock gives.
pub const MAX_CORRESPONDENCE_DAYS: u32 = 14;

/// A clock's kind and time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// How it counts.
    pub kind: ClockKind,
    /// The time a turn or a game.
    pub time: Duration,
    /// The time a game clock gives its side back after each of its moves.
    pub increment: Duration,
}

impl TimeControl {
    /// Whether it is a correspondence game's: whole days a move. Such a
    /// game is played over days, its players coming and going, and its
    /// clock runs by the calendar, a restart of the server included.
    pub fn is_correspondence(&self) -> bool {
        self.kind == ClockKind::Turn && self.time >= DAY && self.time.as_secs() % DAY.as_secs() == 0
    }
}

/// A running clock.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    control: TimeControl,
    /// Each side's time left, by [`Color::index`], as of `since` for the
    /// side to move.
    left: [Duration; 2],
    /// The side whose time runs, unless the clock is stopped.
    turn: Color,
    since: Instant,
    stopped: bool,
}

impl Clock {
    /// A clock at its full time with `turn`'s running from `now`, or with
    /// the times `left` of a game resumed.
    pub fn new(
        control: TimeControl,
        turn: Color,
        left: Option<[Duration; 2]>,
        now: Instant,
    ) -> Clock {
        Clock {
            control,
            left: left.unwrap_or([control.time; 2]),
            turn,
            since: now,
            stopped: false,
        }
    }

    /// The clock's kind and time.
    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// The side whose time runs, if the clock runs.
    pub fn running(&self) -> Option<Color> {
        (!self.stopped).then_some(self.turn)
    }

    /// `color`'s time left at `now`.
    pub fn left(&self, color: Color, now: Instant) -> Duration {
        if self.control.kind == ClockKind::Turn && color != self.turn {
            // Waiting, it has its next turn's whole time.
            return self.control.time;
        }
        let left = self.left[color.index()];
        if self.running() == Some(color) {
            left.saturating_sub(now.saturating_duration_since(self.since))
        } else {
            left
        }
    }

    /// The side to move, if its time ran out by `now`.
    pub fn flagged(&self, now: Instant) -> Option<Color> {
        self.running()
            .filter(|&color| self.left(color, now) == Duration::ZERO)
    }

    /// Ends the turn with a move at `now`: its time is taken (and the
    /// increment given), and the other side's turn begins.
    pub fn press(&mut self, now: Instant) {
        let mover = self.turn;
        self.left[mover.index()] = self.left(mover, now) + self.control.increment;
        self.turn = mover.opponent();
        self.begin_turn(now);
    }

    /// Begins `turn`'s turn at `now` when moves are taken back or
    /// played again, or a game set up, the clock running.
    pub fn restart(&mut self, turn: Color, now: Instant) {
        if !self.stopped {
            self.left[self.turn.index()] = self.left(self.turn, now);
        }
        self.turn = turn;
        self.stopped = false;
        self.begin_turn(now);
    }

    fn begin_turn(&mut self, now: Instant) {
        if self.control.kind == ClockKind::Turn {
            self.left[self.turn.index()] = self.control.time;
        }
        self.since = now;
    }

    /// Stops the clock at `now`: the game is over.
    pub fn stop(&mut self, now: Instant) {
        if !self.stopped {
            self.left[self.turn.index()] = self.left(self.turn, now);
            self.stopped = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    fn control(kind: ClockKind, seconds: u64) -> TimeControl {
        TimeControl {
            kind,
            time: SECOND * seconds as u32,
            increment: Duration::ZERO,
        }
    }

    #[test]
    fn a_game_clock_with_an_increment_gives_it_after_each_move() {
        let start = Instant::now();
        let control = TimeControl {
            increment: 2 * SECOND,
            ..control(ClockKind::Game, 10)
        };
        let mut clock = Clock::new(control, Color::White, None, start);
        clock.press(start + 3 * SECOND);
        assert_eq!(clock.left(Color::White, start + 3 * SECOND), 9 * SECOND);
        clock.press(start + 4 * SECOND);
        assert_eq!(clock.left(Color::Black, start + 4 * SECOND), 11 * SECOND);
        // A side whose time ran out has no increment to save it.
        assert_eq!(clock.flagged(start + 13 * SECOND), Some(Color::White));
    }

    #[test]
    fn a_game_clock_takes_each_turns_time_from_its_side() {
        let start = Instant::now();
        let mut clock = Clock::new(control(ClockKind::Game, 10), Color::White, None, start);
        assert_eq!(clock.left(Color::White, start + 3 * SECOND), 7 * SECOND);
        assert_eq!(clock.left(Color::Black, start + 3 * SECOND), 10 * SECOND);
        clock.press(start + 3 * SECOND);
        assert_eq!(clock.running(), Some(Color::Black));
        assert_eq!(clock.left(Color::White, start + 20 * SECOND), 7 * SECOND);
        assert_eq!(clock.flagged(start + 12 * SECOND), None);
        assert_eq!(clock.flagged(start + 13 * SECOND), Some(Color::Black));
        clock.stop(start + 5 * SECOND);
        assert_eq!(clock.running(), None);
        assert_eq!(clock.left(Color::Black, start + 60 * SECOND), 8 * SECOND);
        assert_eq!(clock.flagged(start + 60 * SECOND), None);
    }

    #[test]
    fn a_turn_clock_gives_every_turn_its_whole_time() {
        let start = Instant::now();
        let mut clock = Clock::new(control(ClockKind::Turn, 5), Color::White, None, start);
        clock.press(start + 4 * SECOND);
        clock.press(start + 8 * SECOND);
        assert_eq!(clock.running(), Some(Color::White));
        assert_eq!(clock.left(Color::White, start + 12 * SECOND), SECOND);
        // Black, who used four seconds of its last turn, waits with its
        // next turn's whole time.
        assert_eq!(clock.left(Color::Black, start + 12 * SECOND), 5 * SECOND);
        assert_eq!(clock.flagged(start + 13 * SECOND), Some(Color::White));
        // Moves taken back: the side to move begins a whole turn again.
        clock.restart(Color::Black, start + 13 * SECOND);
        assert_eq!(clock.left(Color::Black, start + 13 * SECOND), 5 * SECOND);
    }

    #[test]
    fn a_resumed_clock_goes_on_from_the_times_left() {
        let start = Instant::now();
        let left = [2 * SECOND, 9 * SECOND];
        let clock = Clock::new(
            control(ClockKind::Game, 10),
            Color::Black,
            Some(left),
            start,
        );
        assert_eq!(clock.left(Color::White, start + SECOND), 2 * SECOND);
        assert_eq!(clock.left(Color::Black, start + SECOND), 8 * SECOND);
    }
}
