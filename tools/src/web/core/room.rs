//! A room: one game between two browsers, a side each. The room's short
//! code lets the second browser in; each browser then holds the secret
//! token of its seat, with which it comes back to it after a reload.

use std::time::{Duration, Instant};

use morris::Color;

/// The letters of a room code: no two that a person may read alike (no
/// I, O, 0 or 1), and no vowel, so that a code is seldom a word.
const CODE_LETTERS: &[u8] = b"BCDFGHJKLMNPQRSTVWXZ23456789";

/// The length of a room code.
const CODE_LENGTH: usize = 6;

/// How long since its last request a seat's browser still counts as
/// there: longer than a long poll waits, or a stream between two of its
/// refreshes, each of which counts as the page asking.
const PRESENT: Duration = Duration::from_secs(30);

/// A new room code, drawn at random.
pub fn new_code() -> String {
    (0..CODE_LENGTH)
        .map(|_| char::from(CODE_LETTERS[rand::random_range(0..CODE_LETTERS.len())]))
        .collect()
}

/// A room code as a person may type it: any case, spaces or dashes
/// anywhere.
pub fn normalize_code(typed: &str) -> String {
    typed
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// A seat's secret: 128 random bits in hexadecimal.
fn new_token() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// A browser's place at the board.
#[derive(Clone, Debug)]
struct Seat {
    token: String,
    last_seen: Instant,
    /// When its page said it was going, if it has not asked since.
    gone_at: Option<Instant>,
}

/// Whether a seat's browser is there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    /// Nobody has sat down yet.
    Waiting,
    /// It asked lately.
    Here,
    /// It has not asked for a while.
    Away,
}

impl Presence {
    /// The presence's name on the page.
    pub fn name(self) -> &'static str {
        match self {
            Presence::Waiting => "waiting",
            Presence::Here => "here",
            Presence::Away => "away",
        }
    }
}

/// Why a browser cannot sit down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoomFull;

/// The seats of a room's game.
#[derive(Clone, Debug)]
pub struct Room {
    /// The code that lets a browser in.
    pub code: String,
    /// By [`Color::index`].
    seats: [Option<Seat>; 2],
}

impl Room {
    /// A room with its creator at `color`; the room and the creator's
    /// token.
    pub fn new(code: String, color: Color, now: Instant) -> (Room, String) {
        let mut room = Room {
            code,
            seats: [None, None],
        };
        let token = room.sit(color, now);
        (room, token)
    }

    /// A room whose two players sit down together (a rated game's): the
    /// room and each seat's token, by [`Color::index`].
    pub fn for_two(code: String, now: Instant) -> (Room, [String; 2]) {
        let mut room = Room {
            code,
            seats: [None, None],
        };
        let tokens = Color::ALL.map(|color| room.sit(color, now));
        (room, tokens)
    }

    /// The token of `color`'s seat, if it is taken.
    pub fn token_of(&self, color: Color) -> Option<&str> {
        self.seats[color.index()]
            .as_ref()
            .map(|seat| seat.token.as_str())
    }

    fn sit(&mut self, color: Color, now: Instant) -> String {
        let token = new_token();
        self.seats[color.index()] = Some(Seat {
            token: token.clone(),
            last_seen: now,
            gone_at: None,
        });
        token
    }

    /// The side of the seat whose token is `token`.
    pub fn seat_of(&self, token: &str) -> Option<Color> {
        Color::ALL.into_iter().find(|color| {
            self.seats[color.index()]
                .as_ref()
                .is_some_and(|seat| seat.token == token)
        })
    }

    /// A browser comes in: back to its seat with its `token`, or to the
    /// free seat; its side and token.
    ///
    /// # Errors
    ///
    /// Both seats are taken by others.
    pub fn join(&mut self, token: Option<&str>, now: Instant) -> Result<(Color, String), RoomFull> {
        if let Some(color) = token.and_then(|t| self.seat_of(t)) {
            self.seen(color, now);
            let token = token.expect("found by it").to_owned();
            return Ok((color, token));
        }
        let free = Color::ALL
            .into_iter()
            .find(|color| self.seats[color.index()].is_none())
            .ok_or(RoomFull)?;
        Ok((free, self.sit(free, now)))
    }

    /// `color`'s browser asked at `at` (a long poll counts from when it
    /// was asked: one asked before the page went is no sign of it).
    pub fn seen(&mut self, color: Color, at: Instant) {
        if let Some(seat) = &mut self.seats[color.index()] {
            seat.last_seen = seat.last_seen.max(at);
            if seat.gone_at.is_some_and(|gone| at > gone) {
                seat.gone_at = None;
            }
        }
    }

    /// `color`'s page said at `now` that it is going (its tab closed):
    /// away until it asks again.
    pub fn gone(&mut self, color: Color, now: Instant) {
        if let Some(seat) = &mut self.seats[color.index()] {
            seat.gone_at = Some(now);
        }
    }

    /// Whether `color`'s browser is there at `now`.
    pub fn presence(&self, color: Color, now: Instant) -> Presence {
        match &self.seats[color.index()] {
            None => Presence::Waiting,
            Some(seat)
                if seat.gone_at.is_none()
                    && now.saturating_duration_since(seat.last_seen) <= PRESENT =>
            {
                Presence::Here
            }
            Some(_) => Presence::Away,
        }
    }

    /// Whether both seats are taken.
    pub fn is_full(&self) -> bool {
        self.seats.iter().all(Option::is_some)
    }

    /// Whether nobody sits in the room.
    pub fn is_empty(&self) -> bool {
        self.seats.iter().all(Option::is_none)
    }

    /// `color`'s browser leaves: its seat is free for the next to come
    /// with the code.
    pub fn leave(&mut self, color: Color) {
        self.seats[color.index()] = None;
    }

    /// The players change sides, for the next game.
    pub fn swap_sides(&mut self) {
        self.seats.swap(0, 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_short_and_read_back_as_typed() {
        let code = new_code();
        assert_eq!(code.len(), CODE_LENGTH);
        assert!(code.bytes().all(|b| CODE_LETTERS.contains(&b)), "{code}");
        // Letters a person may misread, and the vowels that make words.
        assert!(!CODE_LETTERS.iter().any(|b| b"AEIOUY01".contains(b)));
        let typed = format!(" {}-{} ", &code[..3].to_lowercase(), &code[3..]);
        assert_eq!(normalize_code(&typed), code);
    }

    #[test]
    fn two_browsers_sit_and_a_third_is_refused() {
        let now = Instant::now();
        let (mut room, white) = Room::new("ABCDEF".to_owned(), Color::White, now);
        assert_eq!(room.presence(Color::Black, now), Presence::Waiting);
        let (black_side, black) = room.join(None, now).expect("a free seat");
        assert_eq!(black_side, Color::Black);
        assert_ne!(white, black);
        assert_eq!(room.join(None, now), Err(RoomFull));
        assert_eq!(room.join(Some("not a seat"), now), Err(RoomFull));
        // Back with its token: the same seat.
        assert_eq!(
            room.join(Some(&white), now),
            Ok((Color::White, white.clone()))
        );
        assert_eq!(
            room.presence(Color::Black, now + PRESENT * 2),
            Presence::Away
        );
        room.swap_sides();
        assert_eq!(room.token_of(Color::Black), Some(white.as_str()));
        assert_eq!(room.seat_of(&white), Some(Color::Black));
        assert_eq!(room.seat_of(&black), Some(Color::White));
    }

    #[test]
    fn a_room_for_two_has_both_seats_taken() {
        let now = Instant::now();
        let (mut room, [white, black]) = Room::for_two("ABCDEF".to_owned(), now);
        assert!(room.is_full());
        assert_ne!(white, black);
        assert_eq!(room.seat_of(&black), Some(Color::Black));
        assert_eq!(room.presence(Color::White, now), Presence::Here);
        assert_eq!(room.join(None, now), Err(RoomFull));
    }

    #[test]
    fn a_seat_left_is_free_for_the_next_to_come() {
        let now = Instant::now();
        let (mut room, white) = Room::new("ABCDEF".to_owned(), Color::White, now);
        assert!(!room.is_full());
        let (_, black) = room.join(None, now).expect("a free seat");
        assert!(room.is_full());
        room.leave(Color::Black);
        assert!(!room.is_full() && !room.is_empty());
        assert_eq!(room.seat_of(&black), None);
        assert_eq!(room.presence(Color::Black, now), Presence::Waiting);
        let (side, again) = room.join(None, now).expect("the seat left");
        assert_eq!(side, Color::Black);
        assert_ne!(again, black);
        room.leave(Color::Black);
        room.leave(room.seat_of(&white).expect("seated"));
        assert!(room.is_empty());
    }
}
