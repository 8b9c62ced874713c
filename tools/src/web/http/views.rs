//! What the page is sent: the whole state of a game as one JSON object,
//! and a refusal as another. The structs below are the shape of that
//! JSON, field for field.

use std::collections::BTreeMap;
use std::time::Instant;

use morris::search::{DB_WIN, DB_WIN_BOUND};
use morris::solution::{Database, DbOutcome, DbValue, MoveValue};
use morris::{Color, DrawReason, Move, Outcome, Position, Rules, Square};
use serde::Serialize;

use crate::client::EngineScore;
use crate::web::core::actions;
use crate::web::core::clock::TimeControl;
use crate::web::core::players::RatedPlayer;
use crate::web::core::state::{Ended, EngineJudgement, Review, State, Task, mover_at};
use crate::web::rated::Correspondence;
use crate::web::rated::lobby::{Challenge, Playing};
use crate::web::rated::store::{PastGame, PlayerId, Profile, Standing, Tally, Token};

/// A player, as the table and the player itself see it.
#[derive(Serialize)]
pub(crate) struct PlayerView {
    name: String,
    rating: f64,
    /// The rating deviation: the rating is within about twice it with
    /// 95% confidence.
    deviation: f64,
    /// The rated games played.
    games: u64,
    /// Whether the rating is still provisional: its deviation too wide
    /// to rank the player by it.
    provisional: bool,
    /// The player's secret, only in the answer that made the player.
    #[serde(skip_serializing_if = "Option::is_none")]
    token: Option<String>,
}

/// The player signed in: its standing, and whether it set a password.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MeView {
    #[serde(flatten)]
    pub(crate) player: PlayerView,
    pub(crate) has_password: bool,
}

/// The widest deviation of a rating that is no longer provisional, as
/// the large online sites draw the line.
const PROVISIONAL_DEVIATION: f64 = 110.0;

impl PlayerView {
    /// The view of `standing`, with the player's `token` when it was just
    /// made.
    pub(crate) fn new(standing: Standing, token: Option<Token>) -> PlayerView {
        PlayerView {
            name: standing.name,
            rating: standing.rating.rating,
            deviation: standing.rating.deviation,
            games: standing.games,
            provisional: standing.rating.deviation > PROVISIONAL_DEVIATION,
            token: token.map(|t| t.as_str().to_owned()),
        }
    }
}

/// A player in the lobby.
#[derive(Serialize)]
pub(crate) struct PresentView {
    pub(crate) name: String,
    pub(crate) rating: f64,
    /// Whether it is playing a rated game.
    pub(crate) playing: bool,
}

/// A challenge of the asking player's, declined by the player it was for.
#[derive(Serialize)]
pub(crate) struct DeclinedView {
    /// The challenge's number.
    pub(crate) id: u64,
    /// Who declined it.
    pub(crate) name: String,
}

/// An open challenge.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ChallengeView {
    /// The number to take or withdraw it by.
    id: u64,
    /// The challenger's name and rating.
    name: String,
    rating: f64,
    variant: String,
    n_move_rule: u16,
    flying: bool,
    /// What a board twelve's placing fills is: `draw` or `whiteloses`.
    full_board: &'static str,
    clock: Option<ControlView>,
    /// The challenger's side: `white`, `black` or `random`.
    side: &'static str,
    /// How far from the challenger's rating a taker's may be, if it is
    /// not open to anyone.
    range: Option<f64>,
    /// Whether the asking player may take it.
    open_to_me: bool,
    /// Whether it is the asking player's own.
    mine: bool,
    /// The name of the one player it is for, if it is for one.
    to: Option<String>,
    /// The rated game it offers to play again, colours swapped.
    rematch_of: Option<String>,
}

impl ChallengeView {
    /// The view of `challenge`, for the player `asking`, rated `rating`.
    pub(crate) fn new(challenge: &Challenge, (asking, rating): (PlayerId, f64)) -> ChallengeView {
        let rules = challenge.settings.rules;
        ChallengeView {
            id: challenge.id,
            name: challenge.name.clone(),
            rating: challenge.rating,
            variant: rules.variant.to_string(),
            n_move_rule: rules.n_move_rule,
            flying: rules.flying,
            full_board: rules.full_board.name(),
            clock: challenge.settings.clock.map(Into::into),
            side: challenge.side.map_or("random", Color::name),
            range: challenge.range,
            open_to_me: challenge.open_to((asking, rating)),
            mine: challenge.by == asking,
            to: challenge.to.as_ref().map(|(_, name)| name.clone()),
            rematch_of: challenge.rematch_of.map(|game| game.to_string()),
        }
    }
}

/// A player of a rated game being played, with its rating as it began.
#[derive(Serialize)]
struct PlayingSideView {
    name: String,
    rating: f64,
}

/// A rated game being played, for anyone to watch.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PlayingView {
    /// The number it is watched by.
    watch: String,
    white: PlayingSideView,
    black: PlayingSideView,
    variant: String,
    n_move_rule: u16,
    flying: bool,
    full_board: &'static str,
    clock: Option<ControlView>,
    /// How many follow it now.
    spectators: usize,
}

impl PlayingView {
    /// The view of `playing`, followed by `spectators`.
    pub(crate) fn new(playing: &Playing, spectators: usize) -> PlayingView {
        let rules = playing.settings.rules;
        let side = |player: &RatedPlayer| PlayingSideView {
            name: player.name.clone(),
            rating: player.rating,
        };
        PlayingView {
            watch: playing.watch.to_string(),
            white: side(&playing.players[0]),
            black: side(&playing.players[1]),
            variant: rules.variant.to_string(),
            n_move_rule: rules.n_move_rule,
            flying: rules.flying,
            full_board: rules.full_board.name(),
            clock: playing.settings.clock.map(Into::into),
            spectators,
        }
    }
}

/// The rated games being played, for anyone.
#[derive(Serialize)]
pub(crate) struct PlayingListView {
    /// The lobby's version.
    pub(crate) version: u64,
    pub(crate) playing: Vec<PlayingView>,
}

/// One side of a rated game.
#[derive(Serialize)]
struct RatedSideView {
    name: String,
    /// Its rating when the game began.
    rating: f64,
    /// Its rating after the game, once it is over.
    after: Option<f64>,
}

/// A rated game's players.
#[derive(Serialize)]
struct RatedView {
    white: RatedSideView,
    black: RatedSideView,
    /// Once it is over, whether it moved the ratings (it was long
    /// enough).
    moved: Option<bool>,
}

/// Where a player's rated game in progress is: its id, and the player's
/// seat in it if it is a room's.
#[derive(Serialize)]
pub(crate) struct GameRefView {
    pub(crate) id: String,
    pub(crate) seat: Option<String>,
}

/// The lobby, as a player sees it.
#[derive(Serialize)]
pub(crate) struct LobbyView {
    pub(crate) version: u64,
    /// The player asking.
    pub(crate) me: PlayerView,
    pub(crate) challenges: Vec<ChallengeView>,
    /// The asking player's challenges declined lately.
    pub(crate) declined: Vec<DeclinedView>,
    /// The engine's levels, standing players.
    pub(crate) levels: Vec<PlayerView>,
    /// The players in the lobby now.
    pub(crate) present: Vec<PresentView>,
    /// The rated games being played.
    pub(crate) playing: Vec<PlayingView>,
    /// The player's rated game in progress, played at a sitting.
    pub(crate) game: Option<GameRefView>,
    /// The player's correspondence games, the oldest first.
    pub(crate) correspondence: Vec<CorrespondenceView>,
}

/// A correspondence game of the player's: where it is, against whom, and
/// whose turn it is.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CorrespondenceView {
    id: String,
    seat: Option<String>,
    /// The side the player plays.
    you: &'static str,
    opponent: String,
    /// The side to move.
    turn: &'static str,
    /// Its time left now, in milliseconds.
    left: Option<u64>,
}

impl From<Correspondence> for CorrespondenceView {
    fn from(game: Correspondence) -> CorrespondenceView {
        CorrespondenceView {
            id: game.id.to_string(),
            seat: game.seat,
            you: game.side.name(),
            opponent: game.opponent,
            turn: game.to_move.name(),
            left: game.left.map(millis),
        }
    }
}

/// A game of a player's history.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PastGameView {
    white: String,
    black: String,
    /// `1-0`, `0-1` or `1/2-1/2`.
    result: &'static str,
    termination: String,
    /// Its record, to open on the board.
    record: String,
    /// Whether it moved the ratings.
    rated: bool,
    /// White's rating before and after it, Black's too.
    white_rating: [f64; 2],
    black_rating: [f64; 2],
}

/// Wins, draws and losses.
#[derive(Serialize)]
struct TallyView {
    wins: u64,
    draws: u64,
    losses: u64,
}

impl From<Tally> for TallyView {
    fn from(tally: Tally) -> TallyView {
        TallyView {
            wins: tally.wins,
            draws: tally.draws,
            losses: tally.losses,
        }
    }
}

/// The results against one opponent.
#[derive(Serialize)]
struct OpponentView {
    name: String,
    #[serde(flatten)]
    tally: TallyView,
}

/// A player's rating after a rated game.
#[derive(Serialize)]
struct RatingPoint {
    /// When the game ended, in milliseconds since 1970.
    ended: i64,
    rating: f64,
}

/// The most opponents a profile names.
const OPPONENTS_SHOWN: usize = 20;

/// The most games a profile lists.
const PROFILE_GAMES_SHOWN: usize = 20;

/// A player's page: its standing, since when it plays, its rating after
/// each rated game, its results by colour and by opponent, and its latest
/// games.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ProfileView {
    #[serde(flatten)]
    player: PlayerView,
    /// Whether it is one of the engine's levels, whose rating no game
    /// moves.
    level: bool,
    /// When the player was made, in milliseconds since 1970.
    since: i64,
    ratings: Vec<RatingPoint>,
    by_color: BySide<TallyView>,
    by_opponent: Vec<OpponentView>,
    latest: Vec<PastGameView>,
}

impl ProfileView {
    /// The page of the player of `standing`, a `level` or not, from its
    /// `profile` and its `latest` games.
    pub(crate) fn new(
        standing: Standing,
        level: bool,
        profile: Profile,
        latest: Vec<PastGame>,
    ) -> ProfileView {
        let [white, black] = profile.by_color;
        ProfileView {
            player: PlayerView::new(standing, None),
            level,
            since: profile.since * 1000,
            ratings: profile
                .ratings
                .into_iter()
                .map(|(ended, rating)| RatingPoint {
                    ended: ended * 1000,
                    rating,
                })
                .collect(),
            by_color: BySide {
                white: white.into(),
                black: black.into(),
            },
            by_opponent: profile
                .by_opponent
                .into_iter()
                .take(OPPONENTS_SHOWN)
                .map(|(name, tally)| OpponentView {
                    name,
                    tally: tally.into(),
                })
                .collect(),
            latest: latest
                .into_iter()
                .take(PROFILE_GAMES_SHOWN)
                .map(Into::into)
                .collect(),
        }
    }
}

impl From<PastGame> for PastGameView {
    fn from(game: PastGame) -> PastGameView {
        PastGameView {
            white: game.white,
            black: game.black,
            result: game.result.token(),
            termination: game.termination,
            record: game.record,
            rated: game.rated,
            white_rating: game.white_rating.into(),
            black_rating: game.black_rating.into(),
        }
    }
}

/// A refusal: why the request changed nothing.
#[derive(Serialize)]
pub(crate) struct ErrorView<'a> {
    /// The reason, as the page shows it.
    pub(crate) error: &'a str,
}

/// Everything the page shows, in one object.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StateView {
    id: String,
    version: u64,
    variant: String,
    /// Every point's name.
    points: Vec<String>,
    /// The board's lines, each joining two points.
    lines: Vec<[String; 2]>,
    /// The variant's mills, each its three points.
    mills: Vec<Vec<String>>,
    /// Whether the last placement can fill the board, so that the
    /// full-board rule matters.
    can_fill_the_board: bool,
    /// The line of play: a new one whenever the game is replaced (a game
    /// begun, set up or opened, moves taken back or played again).
    line: u64,
    start: PositionView,
    /// Whether the game was set up rather than played from the start.
    set_up: bool,
    /// The position on the board.
    #[serde(flatten)]
    now: PositionView,
    /// The moves a person may make (none once the game is over).
    legal: Vec<MoveView>,
    /// Each move played, with the board after it.
    history: Vec<Step>,
    /// How the game ended, in words.
    outcome: Option<String>,
    /// The winner of a game that ended, if it was not drawn.
    winner: Option<Side>,
    /// The side offering a draw.
    draw_offer: Option<Side>,
    /// The side whose draw offer was declined, until the next move.
    draw_declined: Option<Side>,
    /// Whether the position is in its opening, where the engine declines
    /// every draw.
    in_the_opening: bool,
    /// Whether an undo would take a person's move back.
    can_undo: bool,
    /// Whether there are moves taken back to play again.
    can_redo: bool,
    clock: Option<ClockView>,
    /// The room, when two browsers play the game.
    room: Option<RoomView>,
    /// The players, when the game is rated.
    rated: Option<RatedView>,
    review: Option<ReviewView>,
    settings: SettingsView,
    engine: EngineReport,
    hint: Option<MoveView>,
    /// The databases' values of the position and of each move, when they
    /// hold it.
    exact: Option<ExactView>,
    /// The position whose values are to be read into `exact`.
    #[serde(skip)]
    to_value: Option<Position>,
    /// Whether fair play keeps values, hints and the engine's play off
    /// the position: a rated game in progress stands on it.
    values_off: bool,
    /// Whether the server has endgame databases at all.
    databases: bool,
    /// Whether they are of the game's rules (they hold one set).
    databases_hold_rules: bool,
    /// Whether it is a spectator's view, which plays nothing.
    watching: bool,
}

/// The stones on a board: point name to colour.
type Board = BTreeMap<String, Side>;

/// A colour, as the page names it: `white` or `black`.
#[derive(Clone, Copy, Serialize)]
#[serde(rename_all = "lowercase")]
enum Side {
    White,
    Black,
}

impl From<Color> for Side {
    fn from(color: Color) -> Side {
        match color {
            Color::White => Side::White,
            Color::Black => Side::Black,
        }
    }
}

/// A count for each colour.
#[derive(Serialize)]
struct BySide<T> {
    white: T,
    black: T,
}

impl<T> BySide<T> {
    fn of(count: impl Fn(Color) -> T) -> BySide<T> {
        BySide {
            white: count(Color::White),
            black: count(Color::Black),
        }
    }
}

/// A position of the game: the one on the board, or one the page shows
/// when stepping through the moves.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PositionView {
    board: Board,
    fen: String,
    turn: Side,
    /// The number of the move the side to move makes next, as records
    /// number them.
    fullmove: u32,
    in_hand: BySide<u8>,
    on_board: BySide<u32>,
}

impl PositionView {
    fn of(position: &Position) -> PositionView {
        PositionView {
            board: board(position),
            fen: position.fen(),
            turn: position.side_to_move().into(),
            fullmove: position.fullmove_number(),
            in_hand: BySide::of(|color| position.in_hand(color)),
            on_board: BySide::of(|color| position.stones(color).len()),
        }
    }
}

/// A move: its text and the points it uses.
#[derive(Serialize)]
struct MoveView {
    text: String,
    from: Option<String>,
    to: String,
    remove: Option<String>,
}

impl From<Move> for MoveView {
    fn from(mv: Move) -> MoveView {
        MoveView {
            text: mv.to_string(),
            from: mv.from.map(|s| s.to_string()),
            to: mv.to.to_string(),
            remove: mv.removal.map(|s| s.to_string()),
        }
    }
}

/// A move played and the position after it.
#[derive(Serialize)]
struct Step {
    #[serde(rename = "move")]
    mv: MoveView,
    #[serde(flatten)]
    after: PositionView,
}

/// How the game is played.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SettingsView {
    engine: &'static str,
    /// `easy`, `medium`, `hard`, `full` or a Skill Level's number.
    level: String,
    /// Whether the level plays below full strength.
    weakened: bool,
    /// Milliseconds.
    movetime: u64,
    variant: String,
    /// Moves each without a removal that draw; 0 for none.
    n_move_rule: u16,
    /// Whether a side down to three stones flies.
    flying: bool,
    /// What a board twelve's placing fills is: `draw` or `whiteloses`.
    full_board: &'static str,
    clock: Option<ControlView>,
    /// Whether the person trains: a game over may be taken back.
    training: bool,
}

/// A game reviewed: the value after every move, and the moves that gave
/// value away.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReviewView {
    /// Each position from the start (the moves reviewed and one more):
    /// White's expected score, 0 to 1, where it is known.
    points: Vec<PointView>,
    /// The moves that changed the game's value (by the databases) or its
    /// chances much (by the engine).
    marks: Vec<MarkView>,
    /// The engine's judgements still to come.
    to_come: usize,
    /// Whether the databases hold any position of the game.
    databases: bool,
}

/// A position's value in a review.
#[derive(Serialize)]
struct PointView {
    /// White's expected score: 1 a win, 0.5 a draw, 0 a loss.
    white: Option<f64>,
    /// Whether it is exact (the databases, or the rules at the end) or
    /// the engine's judgement.
    exact: bool,
}

/// A move that gave value away.
#[derive(Serialize)]
struct MarkView {
    /// Its place in the game, from 1.
    ply: usize,
    side: Side,
    #[serde(rename = "move")]
    mv: String,
    /// A better move, when one is known.
    best: Option<String>,
    /// What it did, in words.
    words: String,
    /// How it is marked in the list of moves: `??` for a move that lost
    /// the game by the databases, `?` for one that let a win go to a
    /// draw, or that the engine judged weak.
    sign: &'static str,
    exact: bool,
}

/// How much a move judged by the engine may lower its side's expected
/// score (0 to 1) before the review marks it.
const MARKED_DROP: f64 = 0.2;

impl ReviewView {
    /// The view of `review` of `game`, the engine still `judging` its
    /// positions or not (done, or stopped by a move).
    fn of(review: &Review, game: &morris::Game, judging: bool) -> ReviewView {
        let mover = |ply: usize| mover_at(game, ply);
        let plies = review.exact.len();
        // The exact value of each position for its side to move.
        let exact_at = |index: usize| review.exact_at(index);
        let engine_at = |index: usize| review.engine[index].as_ref().map(EngineJudgement::expected);
        let for_white = |index: usize, value: f64| {
            if mover(index) == Color::White {
                value
            } else {
                1.0 - value
            }
        };
        let points = (0..=plies)
            .map(|index| match exact_at(index) {
                Some(outcome) => PointView {
                    white: Some(for_white(index, outcome.points())),
                    exact: true,
                },
                None => PointView {
                    white: engine_at(index).map(|value| for_white(index, value)),
                    exact: false,
                },
            })
            .collect();
        let mut marks = Vec::new();
        for (ply, &mv) in game.moves().iter().enumerate().take(plies) {
            let side = mover(ply);
            let exact = review.exact[ply].as_ref();
            if let Some(judged) = exact.filter(|m| m.judgement.changes_value()) {
                let (before, after) = (judged.judgement.before, judged.judgement.after);
                let (words, sign) = match (before, after) {
                    (Some(DbOutcome::Win), Some(DbOutcome::Draw)) => {
                        ("a win thrown away: a draw now", "?")
                    }
                    (Some(DbOutcome::Win), _) => ("a win turned into a loss", "??"),
                    _ => ("a draw turned into a loss", "??"),
                };
                marks.push(MarkView {
                    ply: ply + 1,
                    side: side.into(),
                    mv: mv.to_string(),
                    best: judged.best.map(|m| m.to_string()),
                    words: words.to_owned(),
                    sign,
                    exact: true,
                });
                continue;
            }
            // The engine's judgement on one side at least (a move out of
            // its reach into the databases' is weighed the same way).
            let value_at = |index: usize| {
                exact_at(index)
                    .map(DbOutcome::points)
                    .or_else(|| engine_at(index))
            };
            let (Some(before), Some(after)) = (value_at(ply), value_at(ply + 1)) else {
                continue;
            };
            if exact_at(ply).is_some() && exact_at(ply + 1).is_some() {
                continue;
            }
            let after = 1.0 - after;
            let best = review.engine[ply].and_then(|j| j.best);
            if before - after >= MARKED_DROP && best != Some(mv) {
                let percent = |value: f64| (value * 100.0).round();
                marks.push(MarkView {
                    ply: ply + 1,
                    side: side.into(),
                    mv: mv.to_string(),
                    best: best.map(|m| m.to_string()),
                    words: format!(
                        "{}'s chances from {}% to {}%",
                        side.name(),
                        percent(before),
                        percent(after)
                    ),
                    sign: "?",
                    exact: false,
                });
            }
        }
        ReviewView {
            points,
            marks,
            to_come: if judging {
                review.to_judge - review.engine.iter().flatten().count()
            } else {
                0
            },
            databases: review
                .exact
                .iter()
                .flatten()
                .any(|m| m.judgement.before.or(m.judgement.after).is_some()),
        }
    }
}

/// How a game ended, in the page's words: the N-move rule by its number
/// of moves, as the help says it.
fn ended_words(ended: Ended, rules: Rules) -> String {
    let by_rule = Ended::Rules(Outcome::Draw {
        reason: DrawReason::NMoveRule,
    });
    match rules.draw_plies() {
        Some(plies) if ended == by_rule => {
            format!("draw ({} moves each without a removal)", plies / 2)
        }
        _ => ended.to_string(),
    }
}

/// A room as one of its seats sees it.
#[derive(Serialize)]
struct RoomView {
    code: String,
    /// The side this browser plays.
    you: Side,
    /// The seat's secret, only in the answer that sits a browser down.
    #[serde(skip_serializing_if = "Option::is_none")]
    seat: Option<String>,
    /// `waiting` (for someone to join), `here` or `away`.
    opponent: &'static str,
}

/// A clock's kind and time.
#[derive(Serialize)]
struct ControlView {
    /// `turn` or `game`.
    kind: &'static str,
    /// Milliseconds.
    time: u64,
    /// Milliseconds given back after each move (a game clock's).
    increment: u64,
    /// Whether it is a correspondence game's: whole days a move.
    correspondence: bool,
}

impl From<TimeControl> for ControlView {
    fn from(control: TimeControl) -> ControlView {
        ControlView {
            kind: control.kind.name(),
            time: millis(control.time),
            increment: millis(control.increment),
            correspondence: control.is_correspondence(),
        }
    }
}

/// The game's clock as it stood when the view was made.
#[derive(Serialize)]
struct ClockView {
    #[serde(flatten)]
    control: ControlView,
    /// Milliseconds left for each side.
    left: BySide<u64>,
    /// The side whose time runs, unless the clock is stopped.
    running: Option<Side>,
}

fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The engine: who it is, what it is doing and what it last said.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EngineReport {
    name: Option<String>,
    /// `move`, `hint` or `review` while it thinks.
    thinking: Option<&'static str>,
    depth: Option<u32>,
    /// Its score in words (none from a weakened search: no judgement).
    score: Option<String>,
    /// Its principal variation, the moves separated by spaces.
    pv: String,
    /// White's chances by its last report, in thousandths: win, draw,
    /// loss (none from a weakened search).
    white_wdl: Option<[u32; 3]>,
    failure: Option<String>,
}

/// The databases' value of the position, and of each legal move (the
/// position after it, for the side that made it), under the game's
/// N-move rule as `morris probe` gives them.
#[derive(Serialize)]
struct ExactView {
    value: DbView,
    moves: BTreeMap<String, Option<DbView>>,
}

/// A database value for the side to move: the outcome with best play
/// and, unless it is a draw without the N-move rule or a placing
/// position's, the plies to the next removal.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DbView {
    /// `win`, `draw` or `loss`.
    outcome: &'static str,
    distance: Option<u16>,
    /// The outcome without the N-move rule, where the rule makes it a
    /// draw (the next removal would come too late).
    without_rule: Option<&'static str>,
}

impl DbView {
    /// An outcome without a distance.
    fn of_outcome(outcome: DbOutcome) -> DbView {
        DbView {
            outcome: outcome.name(),
            distance: None,
            without_rule: None,
        }
    }

    /// A moving position's `value` as stored, whose outcome is
    /// `with_rule` once the N-move rule is applied.
    fn under_rule(value: DbValue, with_rule: DbOutcome) -> DbView {
        DbView {
            outcome: with_rule.name(),
            distance: (value.outcome != DbOutcome::Draw).then_some(value.distance),
            without_rule: (with_rule != value.outcome).then_some(value.outcome.name()),
        }
    }
}

/// A score for `side` in words for a person, from the side ahead: "white
/// is ahead by 0.4 stones", "black wins in 3 moves", "white wins (the
/// databases: the next removal within 9 plies)", "about even".
fn score_words(score: EngineScore, side: Color) -> String {
    let (EngineScore::Centistones(value) | EngineScore::Mate(value)) = score;
    let leader = if value < 0 { side.opponent() } else { side }.name();
    let margin = value.abs();
    if matches!(score, EngineScore::Mate(_)) {
        let moves = if margin == 1 { "move" } else { "moves" };
        format!("{leader} wins in {margin} {moves}")
    } else if margin >= i64::from(DB_WIN_BOUND) {
        // The search reads the plies to the removal only where the N-move
        // rule needs them, and the most they can be elsewhere: a bound.
        let plies = i64::from(DB_WIN) - margin;
        format!("{leader} wins (the databases: the next removal within {plies} plies)")
    } else if margin < 10 {
        "about even".to_owned()
    } else {
        format!("{leader} is ahead by {:.1} stones", margin as f64 / 100.0)
    }
}

fn board(position: &Position) -> Board {
    Color::ALL
        .into_iter()
        .flat_map(|color| {
            position
                .stones(color)
                .into_iter()
                .map(move |sq| (sq.to_string(), Side::from(color)))
        })
        .collect()
}

impl StateView {
    /// The view of game `id` in `state` for the seat playing `seat` (in
    /// a room), saying whether the server has databases `db`; their values
    /// are read once the game's lock is let go (see [`Unvalued`]), while
    /// the game goes on (not in a room: the players play on their own),
    /// unless `values_off`: fair play keeps them, the engine's judgement
    /// and its hint off the position.
    pub(crate) fn of(
        id: u64,
        state: &State,
        (db, values_off): (Option<&Database>, bool),
        seat: Option<Color>,
    ) -> Unvalued {
        let databases = db.is_some();
        let databases_hold_rules = db.is_some_and(|db| db.holds(state.game.position().rules()));
        // Two people, or a person rated against the engine, play on their own.
        let on_their_own = state.room.is_some() || state.rated.is_some();
        let told = !on_their_own && !values_off;
        let game = &state.game;
        let position = game.position();
        let rules = position.rules();
        let tables = rules.variant.tables();
        let lines = Square::ALL
            .iter()
            .flat_map(|&a| {
                tables
                    .neighbors(a)
                    .into_iter()
                    .filter(move |b| a.index() < b.index())
                    .map(move |b| [a.to_string(), b.to_string()])
            })
            .collect();
        let mut replay = *game.start();
        let history = game
            .moves()
            .iter()
            .map(|&mv| {
                replay.play(mv);
                Step {
                    mv: mv.into(),
                    after: PositionView::of(&replay),
                }
            })
            .collect();
        let ended = state.ended();
        let legal = if ended.is_some() {
            Vec::new()
        } else {
            position.legal_moves().into_iter().map(Into::into).collect()
        };
        // Read once the game's lock is let go: see [`Unvalued`].
        let to_value = (told && ended.is_none()).then_some(*position);
        let engine = &state.engine;
        // A weakened engine's score is a shallow search's, not a judgement;
        // and at a weakened level a hint's search, at full strength, is not
        // shown either, to come and go with the hints.
        let judged = engine
            .scored_side
            .filter(|_| !engine.weakened && !state.settings.strength.weakened() && told);
        Unvalued(StateView {
            id: id.to_string(),
            version: state.version,
            variant: rules.variant.to_string(),
            points: Square::ALL.iter().map(ToString::to_string).collect(),
            lines,
            mills: tables
                .mills()
                .iter()
                .map(|mill| mill.into_iter().map(|sq| sq.to_string()).collect())
                .collect(),
            can_fill_the_board: rules.variant.can_fill_the_board(),
            line: state.line,
            start: PositionView::of(game.start()),
            set_up: state.set_up,
            now: PositionView::of(position),
            legal,
            history,
            outcome: ended.map(|e| ended_words(e, rules)),
            winner: ended.and_then(|e| e.winner()).map(Into::into),
            draw_offer: state.draw_offer.map(Into::into),
            draw_declined: state.draw_declined.map(Into::into),
            in_the_opening: actions::in_the_opening(position),
            can_undo: actions::can_undo(state),
            can_redo: !state.redo.is_empty(),
            review: state
                .review
                .as_ref()
                .filter(|review| review.line == state.line)
                .map(|review| {
                    ReviewView::of(review, game, state.engine.task == Some(Task::Review))
                }),
            room: state.room.as_ref().zip(seat).map(|(room, you)| RoomView {
                code: room.code.clone(),
                you: you.into(),
                seat: None,
                opponent: room.presence(you.opponent(), Instant::now()).name(),
            }),
            rated: state.rated.as_ref().map(|rated| {
                let after = rated.after.as_ref();
                let side = |color: Color| {
                    let player = rated.player(color);
                    RatedSideView {
                        name: player.name.clone(),
                        rating: player.rating,
                        after: after.map(|after| match color {
                            Color::White => after.white.rating,
                            Color::Black => after.black.rating,
                        }),
                    }
                };
                RatedView {
                    white: side(Color::White),
                    black: side(Color::Black),
                    moved: after.map(|after| after.moved),
                }
            }),
            clock: state.clock.map(|clock| {
                let now = Instant::now();
                ClockView {
                    control: clock.control().into(),
                    left: BySide::of(|color| millis(clock.left(color, now))),
                    running: clock.running().map(Into::into),
                }
            }),
            settings: SettingsView {
                engine: state.settings.engine_side.name(),
                level: state.settings.strength.name(),
                weakened: state.settings.strength.weakened(),
                movetime: millis(state.settings.movetime),
                variant: state.settings.rules.variant.to_string(),
                n_move_rule: state.settings.rules.n_move_rule,
                flying: state.settings.rules.flying,
                full_board: state.settings.rules.full_board.name(),
                clock: state.settings.clock.map(Into::into),
                training: state.settings.training,
            },
            engine: EngineReport {
                name: engine.name.clone(),
                thinking: engine.task.map(|task| match task {
                    Task::Move => "move",
                    Task::Hint => "hint",
                    Task::DrawOffer => "draw",
                    Task::Review => "review",
                }),
                depth: engine.thinking.depth,
                score: engine
                    .thinking
                    .score
                    .zip(judged)
                    .map(|(score, side)| score_words(score, side)),
                pv: if told {
                    engine.thinking.pv.join(" ")
                } else {
                    String::new()
                },
                white_wdl: engine
                    .thinking
                    .wdl
                    .zip(judged)
                    .map(|([win, draw, loss], side)| match side {
                        Color::White => [win, draw, loss],
                        Color::Black => [loss, draw, win],
                    }),
                failure: engine.failure.clone(),
            },
            hint: state.hint.filter(|_| told).map(Into::into),
            exact: None,
            to_value,
            values_off,
            databases,
            databases_hold_rules,
            watching: false,
        })
    }
}

impl StateView {
    /// The view as a spectator is sent it: the game known by the number
    /// it is `watch`ed by (its own is its players').
    pub(crate) fn watched(self, watch: u64) -> StateView {
        StateView {
            id: watch.to_string(),
            watching: true,
            ..self
        }
    }
}

/// A game's view whose databases' values are still to be read: made under
/// the game's lock, valued once the lock is let go, since reading the
/// databases may wait for the disk.
pub(crate) struct Unvalued(StateView);

impl Unvalued {
    /// The view, with the values of `db` where it holds the position.
    pub(crate) fn valued(self, db: Option<&Database>) -> StateView {
        let mut view = self.0;
        view.exact = view
            .to_value
            .take()
            .zip(db)
            .and_then(|(position, db)| exact_of(db, &position));
        view
    }
}

/// The databases' values of `position` and of each of its moves, if they
/// hold it.
fn exact_of(db: &Database, position: &Position) -> Option<ExactView> {
    if position.stones_to_place() > 0 {
        // The placing phase's values have no distance.
        let value = db.outcome(position)?;
        let moves = db
            .moves(position)
            .into_iter()
            .map(|known| (known.mv.to_string(), known.outcome.map(DbView::of_outcome)))
            .collect();
        return Some(ExactView {
            value: DbView::of_outcome(value),
            moves,
        });
    }
    // The position's value under the rule is the best of its moves',
    // read once for both.
    let known = db.moves(position);
    let with_rule = MoveValue::best_with_rule(&known)?;
    let value = DbView::under_rule(db.value(position)?, with_rule);
    let moves = known
        .into_iter()
        .map(|known| {
            let view = known.value.zip(known.with_rule);
            let view = view.map(|(value, with_rule)| DbView::under_rule(value, with_rule));
            (known.mv.to_string(), view)
        })
        .collect();
    Some(ExactView { value, moves })
}

impl StateView {
    /// The view with the seat's token, for the browser just sat down.
    pub(crate) fn with_seat(mut self, token: String) -> StateView {
        if let Some(room) = &mut self.room {
            room.seat = Some(token);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_told_from_the_side_ahead() {
        let words = score_words;
        assert_eq!(
            words(EngineScore::Centistones(-45), Color::White),
            "black is ahead by 0.5 stones"
        );
        assert_eq!(
            words(EngineScore::Centistones(120), Color::Black),
            "black is ahead by 1.2 stones"
        );
        assert_eq!(
            words(EngineScore::Centistones(-5), Color::Black),
            "about even"
        );
        assert_eq!(
            words(EngineScore::Mate(3), Color::Black),
            "black wins in 3 moves"
        );
        assert_eq!(
            words(EngineScore::Mate(-2), Color::Black),
            "white wins in 2 moves"
        );
        assert_eq!(
            words(EngineScore::Mate(1), Color::White),
            "white wins in 1 move"
        );
        assert_eq!(
            words(
                EngineScore::Centistones(i64::from(-DB_WIN + 9)),
                Color::White
            ),
            "black wins (the databases: the next removal within 9 plies)"
        );
    }
}
