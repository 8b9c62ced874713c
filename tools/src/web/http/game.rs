//! The HTTP side of a game: one browser's game against the engine, or a
//! room's between two; each request resolved to its game and seat,
//! checked against what the game allows, and answered by an action of the
//! game and the view after it.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use morris::Color;

use super::reply::{Reply, refused};
use super::views::StateView;
use crate::web::core::requests::{self, JoinRequest, RoomRequest};
use crate::web::core::settings::Settings;
use crate::web::core::state::State;
use crate::web::core::{actions, record};
use crate::web::game::Games;
use crate::web::game::session::Session;

/// How long a view made for a game's spectators is sent to others who
/// ask, the game unchanged, before one is made anew: its clocks age.
const SPECTATORS_VIEW_FRESH: Duration = Duration::from_millis(100);

/// What a game's page asks of it, each a `POST /api/NAME`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    New,
    Settings,
    Move,
    Review,
    Undo,
    Redo,
    Resign,
    Draw,
    Leave,
    Away,
    Close,
    Hint,
    Restart,
    Setup,
    Record,
}

impl Action {
    /// The action of `/api/NAME`.
    pub(crate) fn named(name: &str) -> Option<Action> {
        Some(match name {
            "new" => Action::New,
            "settings" => Action::Settings,
            "move" => Action::Move,
            "review" => Action::Review,
            "undo" => Action::Undo,
            "redo" => Action::Redo,
            "resign" => Action::Resign,
            "draw" => Action::Draw,
            "leave" => Action::Leave,
            "away" => Action::Away,
            "close" => Action::Close,
            "hint" => Action::Hint,
            "restart" => Action::Restart,
            "setup" => Action::Setup,
            "record" => Action::Record,
            _ => return None,
        })
    }

    /// Whether a room's seat may ask for it: the game's moves and its end,
    /// the next game, and leaving.
    fn in_a_room(self) -> bool {
        use Action::{Away, Draw, Leave, Move, New, Resign};
        matches!(self, Move | Resign | Draw | New | Leave | Away)
    }

    /// Whether the player of a rated game may ask for it: no help, no
    /// take-back, no other game (a rated game against the engine has no
    /// room, and is closed to be left).
    fn in_a_rated_game(self) -> bool {
        use Action::{Away, Close, Draw, Leave, Move, Resign};
        matches!(self, Move | Resign | Draw | Leave | Away | Close)
    }
}

/// A request's query: its keys and values.
pub(crate) type Query = HashMap<String, String>;

/// A game asked for by the query's `id`, with the token of its `seat` (a
/// room's), checked.
pub(crate) struct Asked {
    pub(crate) id: u64,
    pub(crate) session: std::sync::Arc<Session>,
    pub(crate) token: Option<String>,
}

impl Asked {
    /// The game of `query`'s `id`, and its seat's token checked.
    pub(crate) fn find(games: &Games, query: &Query) -> Result<Asked, Reply> {
        let Some(id) = query.get("id").and_then(|id| id.parse::<u64>().ok()) else {
            return Err(Reply::error(404, "no such page"));
        };
        let Some(session) = games.get(id) else {
            return Err(Reply::error(
                404,
                "no such game: the server may have restarted",
            ));
        };
        let token = query.get("seat").cloned();
        // A room's game answers only its seats.
        seat_of(&session, token.as_deref())?;
        Ok(Asked { id, session, token })
    }

    /// The view of the game for its seat as it is now (the next game of a
    /// room swaps the sides).
    pub(crate) fn view(&self, games: &Games) -> Reply {
        let seat = seat_of(&self.session, self.token.as_deref()).ok().flatten();
        Reply::json(&view(games, self.id, &self.session, |_| seat))
    }
}

/// The view of game `id` (`session`), watched by the number `watch`, that
/// its spectators are sent: no seat's, and one for them all (see
/// [`Session::spectators_view`]).
pub(crate) fn spectators_view(games: &Games, (watch, id): (u64, u64), session: &Session) -> Reply {
    let body = session.spectators_view(SPECTATORS_VIEW_FRESH, || {
        Reply::json(&view(games, id, session, |_| None).watched(watch)).body
    });
    Reply {
        status: 200,
        content_type: "application/json",
        body: body.to_string(),
    }
}

/// The view of game `id` (`session`) for the seat playing the side `seat`
/// says (told the state, locked), with the values the server may tell:
/// read from the databases once the game's lock is let go.
pub(crate) fn view(
    games: &Games,
    id: u64,
    session: &Session,
    seat: impl FnOnce(&mut State) -> Option<Color>,
) -> StateView {
    let unvalued = {
        let mut state = session.lock();
        let seat = seat(&mut state);
        StateView::of(id, &state, (games.db(), session.values_off(&state)), seat)
    };
    unvalued.valued(games.db())
}

/// The view of the game after a long poll's wait, at `asked`: the seat
/// asking is there.
pub(crate) fn seen(games: &Games, asked: &Asked, at: Instant) -> Reply {
    // The seat's side as it is now: the next game may have swapped.
    let seat = |state: &mut State| {
        state.room.as_mut().and_then(|room| {
            let color = room.seat_of(asked.token.as_deref()?)?;
            room.seen(color, at);
            Some(color)
        })
    };
    Reply::json(&view(games, asked.id, &asked.session, seat))
}

/// The game's record.
pub(crate) fn record_of(asked: &Asked) -> Reply {
    Reply {
        status: 200,
        content_type: "application/x-chess-pgn; charset=utf-8",
        body: record::record_text(&asked.session.lock()),
    }
}

/// A new game against the engine under the body's settings.
pub(crate) fn create(games: &Games, body: &str) -> Reply {
    let settings = match actions::settings_from(body, Settings::default()) {
        Ok(settings) => settings,
        Err(message) => return Reply::error(400, &message),
    };
    match games.create(settings) {
        Ok((id, session)) => Reply::json(&view(games, id, &session, |_| None)),
        Err(refusal) => refused(&refusal),
    }
}

/// `action` asked of the game `asked` with `body`: the view after it, or
/// the refusal.
pub(crate) fn act(games: &Games, asked: &Asked, action: Action, body: &str) -> Reply {
    let Asked { id, session, token } = asked;
    let (id, token) = (*id, token.as_deref());
    let in_room = seat_of(session, token).is_ok_and(|seat| seat.is_some());
    if in_room && !action.in_a_room() {
        return Reply::error(
            403,
            "a game between two browsers allows moves, resign, draw, the next game, leaving and the record only",
        );
    }
    let rated = session.lock().rated.is_some();
    if rated && !action.in_a_rated_game() {
        return Reply::error(
            403,
            "a rated game allows moves, resign, draw, leaving and the record only",
        );
    }
    let db = games.db();
    let done = |result: Result<(), String>| match result {
        Ok(()) => asked.view(games),
        Err(message) => Reply::error(400, &message),
    };
    match action {
        Action::New if in_room => done(session.change(actions::rematch)),
        Action::New => done(session.change(|state| actions::new_game(state, body))),
        Action::Settings => done(session.change(|state| actions::settings(state, body))),
        Action::Move => {
            done(session.change(|state| actions::play(state, body.trim(), seated(state, token))))
        }
        Action::Review => {
            let (line, game) = {
                let state = session.lock();
                (state.line, state.game.clone())
            };
            let judged = actions::judge(db, line, game);
            done(session.review(|state| actions::review(state, judged)))
        }
        Action::Undo => done(session.change(actions::undo)),
        Action::Redo => done(session.change(actions::redo)),
        Action::Resign => {
            done(session.change(|state| actions::resign(state, seated(state, token))))
        }
        Action::Draw => {
            let position = *session.lock().game.position();
            let exact = actions::exact_outcome(db.filter(|_| body.trim() == "offer"), position);
            done(session.draw(|state, values_off| {
                let seat = seated(state, token);
                actions::draw(state, body.trim(), seat, (exact, values_off))
            }))
        }
        Action::Leave if in_room => {
            let mut empty = false;
            let _ = session.change(|state| {
                if let Some(color) = seated(state, token) {
                    empty = actions::leave(state, color);
                }
                Ok(())
            });
            if empty {
                games.close(id);
            }
            Reply::done()
        }
        Action::Away if in_room => {
            let _ = session.change(|state| {
                if let Some(color) = seated(state, token) {
                    let room = state.room.as_mut().expect("a room's game");
                    room.gone(color, Instant::now());
                }
                Ok(())
            });
            Reply::done()
        }
        Action::Close if !in_room => {
            // A rated game left in play is lost.
            let _ = session.change(|state| {
                actions::leave_rated(state);
                Ok(())
            });
            games.close(id);
            Reply::done()
        }
        Action::Hint => done(session.hint()),
        Action::Restart => {
            session.restart();
            done(Ok(()))
        }
        Action::Setup => done(session.change(|state| actions::setup(state, body.trim()))),
        Action::Record => done(session.change(|state| actions::open_record(state, body))),
        Action::Leave | Action::Away | Action::Close => Reply::error(404, "no such page"),
    }
}

/// The side of the seat whose token is `token` as the state has it now
/// (the next game of a room swaps the sides), inside the change that acts
/// for it; `None` for a game of one browser.
fn seated(state: &State, token: Option<&str>) -> Option<Color> {
    state.room.as_ref()?.seat_of(token?)
}

/// The side of the seat whose token is `token`, in a room's game; `None`
/// for a game of one browser.
pub(crate) fn seat_of(session: &Session, token: Option<&str>) -> Result<Option<Color>, Reply> {
    let state = session.lock();
    if state.room.is_none() {
        return Ok(None);
    }
    seated(&state, token)
        .map(Some)
        .ok_or_else(|| Reply::error(403, "this game is a room's: join it with its code"))
}

/// A new room: the body's settings (variant, clock) and `color`, the
/// creator's side (`white`, `black` or `random`).
pub(crate) fn open_room(games: &Games, body: &str) -> Reply {
    let asked = requests::parse::<RoomRequest>(body).and_then(|request| {
        let settings = request.settings.apply(Settings::default())?;
        Ok((settings, request.color()?))
    });
    let (settings, color) = match asked {
        Ok(asked) => asked,
        Err(message) => return Reply::error(400, &message),
    };
    match games.create_room(settings, color) {
        Ok((id, session, token)) => {
            Reply::json(&view(games, id, &session, |_| Some(color)).with_seat(token))
        }
        Err(refusal) => refused(&refusal),
    }
}

/// A browser sits down in a room: `{"code": CODE}`, and `"seat": TOKEN` to
/// come back to its seat; an address that tried too many codes in vain
/// waits a while.
pub(crate) fn join_room(games: &Games, body: &str, from: Option<std::net::IpAddr>) -> Reply {
    if from.is_some_and(|address| games.missed.used_up(address)) {
        return Reply::error(429, "too many room codes tried: wait a minute");
    }
    let request: JoinRequest = match requests::parse(body) {
        Ok(request) => request,
        Err(message) => return Reply::error(400, &message),
    };
    // A code of no letter or digit names no room: say what is missing.
    let typed = request.code.as_deref();
    let Some(code) = typed.filter(|code| !crate::web::core::room::normalize_code(code).is_empty())
    else {
        return Reply::error(400, "a room's code is needed");
    };
    match games.join(code, request.seat.as_deref()) {
        Ok((id, session, token)) => {
            let seat =
                |state: &mut State| state.room.as_ref().and_then(|room| room.seat_of(&token));
            let view = view(games, id, &session, seat);
            Reply::json(&view.with_seat(token))
        }
        Err(refusal) => {
            if let Some(address) = from {
                games.missed.count(address);
            }
            refused(&refusal)
        }
    }
}
