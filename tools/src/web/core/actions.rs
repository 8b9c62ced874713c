//! What a person does to a game: a new game (or one resumed), other
//! settings, a move, an undo and a redo, a resignation, a draw offered or
//! answered, a position or a record set up, the record saved. Each change
//! either applies or says why not, as the page shows it.

use std::time::{Duration, Instant};

use morris::{Color, Game, Move, Position};

use morris::search::{DB_WIN, Score};
use morris::solution::{Database, DbOutcome, judge_game};

use crate::client::EngineScore;
use crate::web::core::clock::Clock;
use crate::web::core::record::{game_from, load_record, play_all};
use crate::web::core::requests::{self, NewGameRequest, SettingsRequest};
use crate::web::core::settings::{EngineSide, Settings};
use crate::web::core::state::{Ending, ExactMove, Review, State, mover_at};

/// `base` with the settings a JSON body gives (see [`SettingsRequest`]).
pub(crate) fn settings_from(body: &str, base: Settings) -> Result<Settings, String> {
    requests::parse::<SettingsRequest>(body)?.apply(base)
}

/// A new game under the settings the body gives; with `start` (a
/// position string), `moves` (a list of moves), `clockLeft` (`{"white":
/// MS, "black": MS}`) and `setUp` (whether it was set up) too, a game
/// resumed where it was left.
pub(crate) fn new_game(state: &mut State, body: &str) -> Result<(), String> {
    let request: NewGameRequest = requests::parse(body)?;
    let settings = request.settings.apply(state.settings)?;
    let rules = settings.rules;
    let start = match &request.start {
        Some(fen) => {
            Position::from_fen(fen, rules).map_err(|e| format!("bad position string: {e}"))?
        }
        None => Position::new(rules),
    };
    let mut game = Game::new(start);
    let texts = request.moves.iter().flatten().map(String::as_str);
    play_all(&mut game, texts, |text| format!("'{text}' is not a move"))?;
    let left = request.clock_left();
    state.settings = settings;
    start_game(state, game, left, request.set_up());
    Ok(())
}

/// The settings the body gives, for the game on the board.
pub(crate) fn settings(state: &mut State, body: &str) -> Result<(), String> {
    let settings = settings_from(body, state.settings)?;
    let rules = state.game.position().rules();
    if settings.rules.variant != rules.variant {
        return Err("a new variant needs a new game".to_owned());
    }
    if settings.rules != rules {
        return Err("new rules need a new game".to_owned());
    }
    if settings.clock != state.settings.clock {
        return Err("a new clock needs a new game".to_owned());
    }
    state.settings = settings;
    Ok(())
}

/// The game of a position string or a list of moves.
pub(crate) fn setup(state: &mut State, text: &str) -> Result<(), String> {
    let game = game_from(text, state.settings.rules)?;
    start_game(state, game, None, true);
    Ok(())
}

/// The game of a record, under its rules, to look at: the engine plays
/// nobody until told to, so that it adds no move to the record.
pub(crate) fn open_record(state: &mut State, text: &str) -> Result<(), String> {
    let (game, ending) = load_record(text)?;
    state.settings.rules = game.position().rules();
    state.settings.engine_side = EngineSide::Neither;
    start_game(state, game, None, true);
    if let Some(ending) = ending {
        state.end(ending, Instant::now());
    }
    Ok(())
}

/// The next game of a room, once this one is over: the players change
/// sides.
pub(crate) fn rematch(state: &mut State) -> Result<(), String> {
    if state.ended().is_none() {
        return Err("the game is not over: resign or offer a draw first".to_owned());
    }
    if let Some(room) = &mut state.room {
        room.swap_sides();
    }
    start_afresh(state);
    Ok(())
}

/// A browser sat down in the room at `now`, a `newcomer` if it took a
/// free seat: a game over, or one not begun (its clock, a draw offered,
/// left by whoever sat there before), is not the newcomer's, so a fresh
/// one begins, the sides as they are.
pub(crate) fn sat_down(state: &mut State, newcomer: bool, now: Instant) {
    if newcomer && (state.ended().is_some() || state.game.moves().is_empty()) {
        start_afresh(state);
    } else {
        state.start_clock_if_played(now);
    }
}

/// A rated game resumed after a restart: `game`, its clock at the times
/// `left`.
pub(crate) fn resume(state: &mut State, game: Game, left: Option<[Duration; 2]>) {
    start_game(state, game, left, false);
}

/// A game under the settings' rules begun from its start.
fn start_afresh(state: &mut State) {
    let start = Position::new(state.settings.rules);
    start_game(state, Game::new(start), None, false);
}

/// A game begun afresh, `set_up` or played from the start: its clock at
/// the settings' time (or the times `left` of a game resumed, the turn's
/// too), nothing to play again.
fn start_game(state: &mut State, game: Game, left: Option<[Duration; 2]>, set_up: bool) {
    let turn = game.position().side_to_move();
    state.set_up = set_up;
    state.redo.clear();
    replace_game(state, game);
    let now = Instant::now();
    state.clock = state
        .settings
        .clock
        .map(|control| Clock::new(control, turn, left, now));
    state.stop_clock_unless_played(now);
}

/// A new line of play: the old one's engine answers no longer count, and
/// the game goes on (a resignation or an agreed draw is taken back with
/// the moves before it).
fn replace_game(state: &mut State, game: Game) {
    let now = Instant::now();
    state.game = game;
    state.line += 1;
    state.ending = None;
    state.draw_offer = None;
    state.draw_declined = None;
    let turn = state.game.position().side_to_move();
    if let Some(clock) = &mut state.clock {
        clock.restart(turn, now);
    }
    state.stop_clock_unless_played(now);
}

/// The side of the person asking: their seat's in a room, else the one
/// the engine does not play, or with two people at one board (or none)
/// the side to move.
fn person_side(state: &State, seat: Option<Color>) -> Color {
    let to_move = state.game.position().side_to_move();
    if let Some(color) = seat {
        return color;
    }
    match state.settings.engine_side {
        EngineSide::White => Color::Black,
        EngineSide::Black => Color::White,
        EngineSide::Neither | EngineSide::Both => to_move,
    }
}

/// Plays a person's move (in a room, the move of the seat `seat`).
pub(crate) fn play(state: &mut State, text: &str, seat: Option<Color>) -> Result<(), String> {
    let side = state.game.position().side_to_move();
    if seat.is_some_and(|color| color != side) && state.ended().is_none() {
        return Err("it is your opponent's turn".to_owned());
    }
    if state.waits_for_player() && state.ended().is_none() {
        return Err(NOBODY_THERE.to_owned());
    }
    if state.ended().is_none()
        && state.settings.engine_side.plays(side)
        && state.engine.failure.is_none()
    {
        return Err("it is the engine's turn".to_owned());
    }
    let mv = text.parse::<Move>().map_err(|e| e.to_string())?;
    state.play(mv)?;
    // The move taken back is played again, or another line begins.
    if state.redo.first() == Some(&mv) {
        state.redo.remove(0);
    } else {
        state.redo.clear();
    }
    Ok(())
}

/// Whether the engine makes the move at `ply` of the game.
fn engine_moves_at(state: &State, ply: usize) -> bool {
    let engine = state.settings.engine_side;
    engine.plays(mover_at(&state.game, ply)) && engine != EngineSide::Both
}

/// The moves an undo keeps: all before the last move a person made, so
/// that it is a person's turn again; `None` when no person has moved.
fn undo_keeps(state: &State) -> Option<usize> {
    (0..state.game.moves().len())
        .rev()
        .find(|&ply| !engine_moves_at(state, ply))
}

/// Whether an undo would take a person's move back: the game goes on (or
/// the person trains), a person has moved, and it is no room's (the
/// players there take nothing back).
pub(crate) fn can_undo(state: &State) -> bool {
    let goes_on = state.ended().is_none() || state.settings.training;
    goes_on && state.room.is_none() && undo_keeps(state).is_some()
}

/// Takes back the last move, and the engine's reply before it, so that it
/// is a person's turn again; the moves taken back can be played again. A
/// game over is taken back only in training: elsewhere its result counts.
pub(crate) fn undo(state: &mut State) -> Result<(), String> {
    if let Some(ended) = state.ended().filter(|_| !state.settings.training) {
        return Err(format!("the game is over ({ended}): start a new one"));
    }
    let moves = state.game.moves().to_vec();
    let keep = undo_keeps(state).ok_or("nothing of yours to take back")?;
    let mut game = Game::new(*state.game.start());
    for &mv in &moves[..keep] {
        game.try_play(mv).expect("a move played before");
    }
    let mut redo = moves[keep..].to_vec();
    redo.append(&mut state.redo);
    state.redo = redo;
    replace_game(state, game);
    Ok(())
}

/// Plays again the move taken back last, and the engine's reply with it.
pub(crate) fn redo(state: &mut State) -> Result<(), String> {
    if state.redo.is_empty() {
        return Err("nothing to play again".to_owned());
    }
    let mut game = state.game.clone();
    let mut redo = std::mem::take(&mut state.redo);
    loop {
        let mv = redo.remove(0);
        game.try_play(mv).expect("a move of this line");
        let ply = game.moves().len();
        if redo.is_empty() || !engine_moves_at(state, ply) || game.outcome().is_some() {
            break;
        }
    }
    state.redo = redo;
    replace_game(state, game);
    Ok(())
}

/// Why a room's game waiting for its second player takes no move, no
/// resignation and no draw.
const NOBODY_THERE: &str = "your friend is not here yet: send them the code";

/// Refuses a resignation or a draw when nobody plays: the game is over,
/// the engine plays itself, or a room waits for its second player.
fn in_play(state: &State) -> Result<(), String> {
    if let Some(ended) = state.ended() {
        return Err(format!("the game is over: {ended}"));
    }
    if state.settings.engine_side == EngineSide::Both {
        return Err("the engine plays both sides".to_owned());
    }
    if state.waits_for_player() {
        return Err(NOBODY_THERE.to_owned());
    }
    Ok(())
}

/// The person asking gives the game up.
pub(crate) fn resign(state: &mut State, seat: Option<Color>) -> Result<(), String> {
    in_play(state)?;
    let loser = person_side(state, seat);
    state.end(Ending::Resigned(loser), Instant::now());
    Ok(())
}

/// The databases' value of `position` under the N-move rule, for the side
/// to move, looked up before a draw is offered on it (off the game's
/// lock): the position, and its value where they know it.
pub(crate) fn exact_outcome(
    db: Option<&Database>,
    position: Position,
) -> (Position, Option<DbOutcome>) {
    (position, db.and_then(|db| db.outcome_with_rule(&position)))
}

/// The person asking offers a draw (`offer`), or answers the other
/// side's offer (`accept`, `decline`); whether the engine is to weigh an
/// offer made to it by a search. An offer to the engine is made on the
/// person's move; where the databases knew the position (`exact`, looked
/// up by [`exact_outcome`], if it is still the game's) it is answered at
/// once, and where fair play keeps its value off (`values_off`) it is
/// declined.
pub(crate) fn draw(
    state: &mut State,
    answer: &str,
    seat: Option<Color>,
    (exact, values_off): ((Position, Option<DbOutcome>), bool),
) -> Result<bool, String> {
    in_play(state)?;
    let side = person_side(state, seat);
    let engine = state.settings.engine_side;
    match answer {
        "offer" if engine.plays(side.opponent()) && engine != EngineSide::Both => {
            if state.engine.task.is_some() {
                return Err("the engine is thinking: offer a draw on your move".to_owned());
            }
            if let Some(failure) = &state.engine.failure {
                return Err(format!("the engine is stopped: {failure}"));
            }
            // Nothing is decided yet: a fair opponent plays on, whatever
            // the position's value. On a rated board's position any
            // answer but that one would tell its value.
            if in_the_opening(state.game.position()) || values_off {
                answer_offer(state, side, false);
                return Ok(false);
            }
            // The databases' value for the side to move, the person; a
            // position moved on from since it was looked up is weighed by
            // a search.
            let (looked_up, exact) = exact;
            let exact = exact.filter(|_| looked_up == *state.game.position());
            match exact {
                Some(outcome) => answer_offer(state, side, -outcome != DbOutcome::Win),
                None => return Ok(true),
            }
        }
        "offer" => state.draw_offer = Some(side),
        "accept" | "decline" => {
            // At one board both players are at the page: either answers;
            // in a room, the side offered it.
            let Some(offering) = state.draw_offer else {
                return Err("no draw is offered".to_owned());
            };
            if seat == Some(offering) {
                return Err("your opponent answers your offer".to_owned());
            }
            if answer == "accept" {
                state.end(Ending::DrawAgreed, Instant::now());
            } else {
                state.draw_offer = None;
                state.draw_declined = Some(offering);
            }
        }
        _ => return Err(format!("'{answer}': offer, accept or decline")),
    }
    Ok(false)
}

/// The engine's answer to the draw `offering` offered it: taken, or
/// declined (the page says so until the next move).
fn answer_offer(state: &mut State, offering: Color, taken: bool) {
    if taken {
        state.end(Ending::DrawAgreed, Instant::now());
    } else {
        state.draw_declined = Some(offering);
    }
}

/// Whether `position` is in its opening, fewer than half the stones
/// placed, where the engine declines every draw offered.
pub(crate) fn in_the_opening(position: &Position) -> bool {
    let stones = u32::from(position.rules().variant.stones());
    2 * stones - position.stones_to_place() < stones
}

/// The points the engine expects from the game, in thousandths, below
/// which it takes a draw: it stands worse, by about a stone or more.
const DRAW_TAKEN_BELOW: u32 = 450;

/// The engine's answer to a draw offered on the person's move, by its
/// search of the position just ended at its own level: taken where the
/// points it expects (from its chances, or those its score gives by the
/// engine's model) are below [`DRAW_TAKEN_BELOW`].
pub(crate) fn answer_offer_by_search(state: &mut State) {
    let offering = state.game.position().side_to_move();
    let chances = state.engine.thinking.score.map(|score| {
        state.engine.thinking.wdl.unwrap_or_else(|| match score {
            EngineScore::Mate(moves) if moves > 0 => [1000, 0, 0],
            EngineScore::Mate(_) => [0, 0, 1000],
            EngineScore::Centistones(value) => {
                let centistones = value.clamp(i64::from(-DB_WIN), i64::from(DB_WIN));
                Score::Cp(centistones as i32).wdl()
            }
        })
    });
    // The search is of the person's move: its loss is the engine's win.
    let taken = chances.is_some_and(|[_, draw, loss]| 2 * loss + draw < 2 * DRAW_TAKEN_BELOW);
    answer_offer(state, offering, taken);
}

/// The seat `seat` leaves its room: a game in play with the other seat
/// there is lost by it, and the seat is free for the next browser with
/// the code; whether the room is empty now.
pub(crate) fn leave(state: &mut State, seat: Color) -> bool {
    let now = Instant::now();
    // Before the first move there is nothing to lose, but in a rated game:
    // its players sit down together, and a seat left ends it.
    if state.is_played() && (!state.game.moves().is_empty() || state.rated.is_some()) {
        state.end(Ending::Left(seat), now);
    }
    let room = state.room.as_mut().expect("a room's game");
    room.leave(seat);
    let empty = room.is_empty();
    state.stop_clock_unless_played(now);
    empty
}

/// The person leaves a rated game against the engine: in play, it is
/// lost.
pub(crate) fn leave_rated(state: &mut State) {
    if state.is_rated_in_play() {
        let person = person_side(state, None);
        state.end(Ending::Left(person), Instant::now());
    }
}

/// A game's moves judged by the databases before its review begins (off
/// the game's lock): line `line`'s game as it then stood, and for each of
/// its moves the judgement, where the databases reach.
pub(crate) struct Judged {
    line: u64,
    game: Game,
    exact: Vec<Option<ExactMove>>,
}

/// Judges each move of `game`, line `line`'s, by the databases `db`:
/// under the game's N-move rule where they can tell it.
pub(crate) fn judge(db: Option<&Database>, line: u64, game: Game) -> Judged {
    let judged = db.map(|db| judge_game(db, &game)).unwrap_or_default();
    let mut position = *game.start();
    let exact = game
        .moves()
        .iter()
        .enumerate()
        .map(|(ply, &mv)| {
            let before = position;
            position.play(mv);
            let judged = judged.get(ply)?;
            // The placing phase's values leave the N-move rule out where it
            // could change them (the databases keep no plies there), as
            // the board shows them and training judges by them.
            let rule_unknown =
                judged.with_rule.before.is_none() || judged.with_rule.after.is_none();
            let stored = before.stones_to_place() > 0 && rule_unknown;
            let judgement = if stored {
                judged.stored
            } else {
                judged.with_rule
            };
            let best = judgement
                .changes_value()
                .then(|| best_move(db?, &before, judgement.before?, stored))
                .flatten();
            Some(ExactMove { judgement, best })
        })
        .collect();
    Judged { line, game, exact }
}

/// Begins a review of the game, each move judged by the databases as
/// `judged` says; the places of the positions they do not reach, for the
/// engine.
pub(crate) fn review(state: &mut State, judged: Judged) -> Result<Vec<usize>, String> {
    let game = &state.game;
    let moves = game.moves();
    if moves.is_empty() {
        return Err("no moves to review".to_owned());
    }
    let unchanged = judged.line == state.line
        && judged.game.start() == game.start()
        && judged.game.moves() == moves;
    if !unchanged {
        return Err("the game changed while it was judged: ask again".to_owned());
    }
    let position = *game.position();
    let side = position.side_to_move();
    let last = game.outcome().map(|outcome| match outcome.winner() {
        None => DbOutcome::Draw,
        Some(winner) if winner == side => DbOutcome::Win,
        Some(_) => DbOutcome::Loss,
    });
    let mut review = Review {
        line: state.line,
        exact: judged.exact,
        last,
        engine: vec![None; moves.len() + 1],
        to_judge: 0,
    };
    let unknown: Vec<usize> = (0..=moves.len())
        .filter(|&i| review.exact_at(i).is_none())
        .collect();
    review.to_judge = unknown.len();
    state.review = Some(review);
    Ok(unknown)
}

/// A move of `position` that keeps its value `value` by the databases
/// (with the N-move rule, or as `stored`), the quickest win first.
fn best_move(db: &Database, position: &Position, value: DbOutcome, stored: bool) -> Option<Move> {
    db.moves(position)
        .into_iter()
        .find(|known| {
            (if stored {
                known.outcome
            } else {
                known.with_rule
            }) == Some(value)
        })
        .map(|known| known.mv)
}
