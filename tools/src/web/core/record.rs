//! Games as text: a game from a position string or moves, a record's
//! game and how it ended, and a game's record as the page saves it and
//! the store keeps it.

use morris::{Color, Game, GameRecord, GameResult, Move, Position, Rules, parse_records};

use crate::arena::game::pgn_date;
use crate::web::core::state::{Ended, Ending, State};

/// A game from a position string, or from moves from the start.
pub(crate) fn game_from(text: &str, rules: Rules) -> Result<Game, String> {
    if text.contains('/') {
        let position =
            Position::from_fen(text, rules).map_err(|e| format!("bad position string: {e}"))?;
        return Ok(Game::new(position));
    }
    let mut game = Game::new(Position::new(rules));
    let tokens = text
        .split_whitespace()
        .filter(|t| !t.ends_with('.') && !t.chars().all(|c| c.is_ascii_digit() || c == '.'));
    play_all(&mut game, tokens, |token| {
        format!("neither a position string nor a list of moves: '{token}' is not a move")
    })?;
    Ok(game)
}

/// Plays each of `texts` on `game`; a text that is no move is refused as
/// `not_a_move` says, an illegal move with its reason.
pub(crate) fn play_all<'a>(
    game: &mut Game,
    texts: impl Iterator<Item = &'a str>,
    not_a_move: impl Fn(&str) -> String,
) -> Result<(), String> {
    for text in texts {
        let mv: Move = text.parse().map_err(|_| not_a_move(text))?;
        game.try_play(mv)
            .map_err(|e| format!("{mv} is illegal here: {}", e.reason))?;
    }
    Ok(())
}

/// The game of a record's first game, and how it ended where the board
/// does not say.
pub(crate) fn load_record(text: &str) -> Result<(Game, Option<Ending>), String> {
    let records = parse_records(text).map_err(|e| format!("bad game record: {e}"))?;
    let record = records.first().ok_or("no game in the record")?;
    let game = record
        .replay()
        .map_err(|e| format!("bad game record: {e}"))?;
    let ending = recorded_ending(record).filter(|_| game.outcome().is_none());
    Ok((game, ending))
}

/// How a record's game ended by its result, for a game the board has not
/// ended: as its `Termination` says in this page's words (a record saved
/// here), else simply as recorded.
fn recorded_ending(record: &GameRecord) -> Option<Ending> {
    let winner = match record.result {
        GameResult::Unfinished => return None,
        GameResult::WhiteWins => Some(Color::White),
        GameResult::BlackWins => Some(Color::Black),
        GameResult::Draw => None,
    };
    let told = record.tag("Termination");
    let candidates = match winner {
        Some(winner) => {
            let loser = winner.opponent();
            vec![
                Ending::Resigned(loser),
                Ending::OnTime(loser),
                Ending::Left(loser),
            ]
        }
        None => vec![Ending::DrawAgreed],
    };
    let said = candidates
        .into_iter()
        .find(|&ending| told == Some(Ended::Otherwise(ending).to_string().as_str()));
    Some(said.unwrap_or(Ending::Recorded(winner)))
}

/// The game as a record (the PGN conventions of docs/TOOLS.md).
pub(crate) fn record_text(state: &State) -> String {
    let game = &state.game;
    let rules = game.position().rules();
    let engine = state
        .engine
        .name
        .clone()
        .unwrap_or_else(|| "engine".to_owned());
    let name = |color| {
        if let Some(rated) = &state.rated {
            rated.player(color).name.clone()
        } else if state.settings.engine_side.plays(color) {
            engine.clone()
        } else {
            "player".to_owned()
        }
    };
    let result = state.ended().map_or(GameResult::Unfinished, |ended| {
        GameResult::from_winner(ended.winner())
    });
    let event = if state.rated.is_some() {
        "morris-web rated game"
    } else {
        "morris-web"
    };
    let mut tags = vec![
        ("Event".to_owned(), event.to_owned()),
        ("Date".to_owned(), pgn_date()),
        ("White".to_owned(), name(Color::White)),
        ("Black".to_owned(), name(Color::Black)),
        ("Result".to_owned(), result.token().to_owned()),
    ];
    tags.extend(GameRecord::rules_tags(rules));
    if *game.start() != Position::new(rules) {
        tags.push(("SetUp".to_owned(), "1".to_owned()));
        tags.push(("FEN".to_owned(), game.start().fen()));
    }
    if let Some(ended) = state.ended() {
        tags.push(("Termination".to_owned(), ended.to_string()));
    }
    GameRecord {
        tags,
        moves: game.moves().to_vec(),
        comments: Default::default(),
        result,
    }
    .to_string()
}
