//! Game records in the conventions of PGN: tag pairs, then the numbered
//! moves in the notation of docs/RULES.md, then the result.
//!
//! ```text
//! [White "morris"]
//! [Black "baseline"]
//! [Result "1-0"]
//! [Variant "nine"]
//! [FEN ".../.../.../....../.../.../... w 9 9 0 1"]
//! [Termination "black is blocked"]
//!
//! 1. d6 d2 2. b4 f4 3. f6 b6 ... 1-0
//! ```
//!
//! A record may hold any tags. `FEN` gives the start position (the start
//! position of the variant when absent); `Variant`, `Flying`,
//! `NMoveRule` and `FullBoard` give the rules (the defaults when absent). Move numbers,
//! `{comments}` and the result token are skipped when reading, and a
//! removal written as its own token (`d6-d5 xb4`) is joined to its move.

use std::collections::BTreeMap;
use std::fmt;

use thiserror::Error;

use crate::board::{
    Color, FenError, FullBoard, Game, IllegalMoveError, Move, MoveSyntaxProblem, MoveToken,
    ParseMoveError, Position, Rules, Variant,
};

/// How a recorded game ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
    /// `*`: not finished.
    #[default]
    Unfinished,
}

impl GameResult {
    /// The result token.
    pub const fn token(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unfinished => "*",
        }
    }

    /// The result for a winner, or a draw.
    pub fn from_winner(winner: Option<Color>) -> GameResult {
        match winner {
            Some(Color::White) => GameResult::WhiteWins,
            Some(Color::Black) => GameResult::BlackWins,
            None => GameResult::Draw,
        }
    }

    /// The result a token writes (`1-0`, `0-1`, `1/2-1/2`, `*`).
    pub fn from_token(token: &str) -> Option<GameResult> {
        [
            GameResult::WhiteWins,
            GameResult::BlackWins,
            GameResult::Draw,
            GameResult::Unfinished,
        ]
        .into_iter()
        .find(|r| r.token() == token)
    }
}

/// One recorded game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameRecord {
    /// Tag pairs, in order; `Result` among them.
    pub tags: Vec<(String, String)>,
    /// The moves from the start position.
    pub moves: Vec<Move>,
    /// The comment written after a move, by the move's index in `moves`
    /// (`book`, or the mover's `score/depth time` as cutechess writes them).
    pub comments: BTreeMap<usize, String>,
    /// The result.
    pub result: GameResult,
}

/// A record that cannot be read or replayed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RecordError {
    /// A tag line that is not `[Name "value"]`.
    #[error("line {line}: malformed tag pair")]
    Tag {
        /// The line, from 1.
        line: usize,
    },
    /// A move token that is not notation.
    #[error("line {line}: {error}")]
    Move {
        /// The line, from 1.
        line: usize,
        /// What is wrong with the token.
        error: ParseMoveError,
    },
    /// A `{` comment never closed.
    #[error("line {line}: unclosed comment")]
    Comment {
        /// The line, from 1.
        line: usize,
    },
    /// A rules tag with a bad value.
    #[error("tag {tag}: '{value}' is not valid")]
    RulesTag {
        /// The tag.
        tag: &'static str,
        /// Its value.
        value: String,
    },
    /// The `FEN` tag is bad.
    #[error("tag FEN: {0}")]
    Fen(#[from] FenError),
    /// A move is illegal when replayed.
    #[error("move {index}: {error}")]
    Illegal {
        /// The move's place, from 1.
        index: usize,
        /// Why it is illegal.
        error: IllegalMoveError,
    },
}

impl GameRecord {
    /// The value of a tag, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The rules from the `Variant`, `Flying`, `NMoveRule` and `FullBoard`
    /// tags.
    ///
    /// # Errors
    ///
    /// [`RecordError::RulesTag`] for a value that is not valid.
    pub fn rules(&self) -> Result<Rules, RecordError> {
        let bad = |tag, value: &str| RecordError::RulesTag {
            tag,
            value: value.to_owned(),
        };
        let mut rules = Rules::default();
        if let Some(value) = self.tag("Variant") {
            rules = Rules::new(
                value
                    .parse::<Variant>()
                    .map_err(|_| bad("Variant", value))?,
            );
        }
        if let Some(value) = self.tag("Flying") {
            rules.flying = value.parse().map_err(|_| bad("Flying", value))?;
        }
        if let Some(value) = self.tag("NMoveRule") {
            rules.n_move_rule = value
                .parse()
                .ok()
                .filter(|&n| n <= Rules::MAX_N_MOVE_RULE)
                .ok_or_else(|| bad("NMoveRule", value))?;
        }
        if let Some(value) = self.tag("FullBoard") {
            rules.full_board = value.parse().map_err(|_| bad("FullBoard", value))?;
        }
        Ok(rules)
    }

    /// The tags that give `rules`, as [`GameRecord::rules`] reads them:
    /// `Variant`, and `Flying`, `NMoveRule` and `FullBoard` where they are
    /// not the defaults.
    pub fn rules_tags(rules: Rules) -> Vec<(String, String)> {
        let mut tags = vec![("Variant".to_owned(), rules.variant.to_string())];
        if !rules.flying {
            tags.push(("Flying".to_owned(), "false".to_owned()));
        }
        if rules.n_move_rule != Rules::DEFAULT_N_MOVE_RULE {
            tags.push(("NMoveRule".to_owned(), rules.n_move_rule.to_string()));
        }
        if rules.full_board != FullBoard::default() {
            tags.push(("FullBoard".to_owned(), rules.full_board.to_string()));
        }
        tags
    }

    /// Plays the record's moves from its start position under its rules.
    ///
    /// # Errors
    ///
    /// A bad rules or `FEN` tag, or the first illegal move.
    pub fn replay(&self) -> Result<Game, RecordError> {
        let rules = self.rules()?;
        let start = match self.tag("FEN") {
            Some(fen) => Position::from_fen(fen, rules)?,
            None => Position::new(rules),
        };
        let mut game = Game::new(start);
        for (index, &mv) in (1..).zip(&self.moves) {
            game.try_play(mv)
                .map_err(|error| RecordError::Illegal { index, error })?;
        }
        Ok(game)
    }
}

impl fmt::Display for GameRecord {
    /// Writes the record: tag pairs, a blank line, the numbered moves
    /// ending in the result, a blank line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, value) in &self.tags {
            let value = value.replace('\\', "\\\\").replace('"', "\\\"");
            writeln!(f, "[{name} \"{value}\"]")?;
        }
        writeln!(f)?;
        let start = self
            .tag("FEN")
            .and_then(|fen| fen.parse::<crate::board::setup::Setup>().ok());
        let mut number = start.map_or(1, |s| s.fullmove_number);
        let mut side = start.map_or(Color::White, |s| s.side_to_move);
        let mut tokens = Vec::new();
        for (i, mv) in self.moves.iter().enumerate() {
            match side {
                Color::White => tokens.push(format!("{number}. {mv}")),
                Color::Black if i == 0 => tokens.push(format!("{number}... {mv}")),
                Color::Black => tokens.push(mv.to_string()),
            }
            if let Some(comment) = self.comments.get(&i) {
                // A brace would end the comment early.
                tokens.push(format!("{{{}}}", comment.replace('}', ")")));
            }
            if side == Color::Black {
                number += 1;
            }
            side = side.opponent();
        }
        tokens.push(self.result.token().to_owned());
        // Lines of at most 80 characters, as PGN asks.
        let mut line = String::new();
        for token in tokens {
            if !line.is_empty() && line.len() + 1 + token.len() > 80 {
                writeln!(f, "{line}")?;
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&token);
        }
        writeln!(f, "{line}")?;
        writeln!(f)
    }
}

/// Reads every record of a text.
///
/// # Errors
///
/// The first malformed tag, comment or move token, with its line.
pub fn parse_records(text: &str) -> Result<Vec<GameRecord>, RecordError> {
    let mut records = Vec::new();
    let mut current: Option<GameRecord> = None;
    let mut in_comment = false;
    let mut comment = String::new();
    let mut pending_action: Option<Move> = None;
    // Whether the current record's moves have begun: a tag after them
    // starts the next record.
    let mut in_movetext = false;
    for (number, line) in (1..).zip(text.lines()) {
        let trimmed = line.trim();
        if !in_comment && trimmed.starts_with('[') {
            let record = match &mut current {
                Some(record) if !in_movetext => record,
                _ => {
                    in_movetext = false;
                    records.extend(current.take());
                    current.insert(GameRecord::default())
                }
            };
            let tag = parse_tag(trimmed).ok_or(RecordError::Tag { line: number })?;
            if tag.0 == "Result" {
                record.result = GameResult::from_token(&tag.1).unwrap_or(GameResult::Unfinished);
            }
            record.tags.push(tag);
            continue;
        }
        let record = current.get_or_insert_with(GameRecord::default);
        let mut rest = trimmed;
        while !rest.is_empty() || in_comment {
            if in_comment {
                let (text, end) = match rest.find('}') {
                    Some(end) => (&rest[..end], Some(end)),
                    None => (rest, None),
                };
                if !comment.is_empty() && !text.is_empty() {
                    comment.push(' ');
                }
                comment.push_str(text.trim());
                let Some(end) = end else { break };
                in_comment = false;
                rest = rest[end + 1..].trim_start();
                // A comment belongs to the move before it.
                if let Some(last) = record.moves.len().checked_sub(1) {
                    record.comments.insert(last, std::mem::take(&mut comment));
                }
                comment.clear();
                continue;
            }
            if let Some(after) = rest.strip_prefix('{') {
                in_comment = true;
                rest = after;
                continue;
            }
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '{')
                .unwrap_or(rest.len());
            let token = &rest[..end];
            rest = rest[end..].trim_start();
            in_movetext = true;
            if let Some(result) = GameResult::from_token(token) {
                record.result = result;
                continue;
            }
            // A move number, alone (`12.`, `12...`) or stuck to its move.
            let token = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            if token.is_empty() {
                continue;
            }
            let parse_error = |error| RecordError::Move {
                line: number,
                error,
            };
            match (token.parse().map_err(parse_error)?, pending_action.take()) {
                (MoveToken::Removal(removal), Some(action)) => {
                    if let Some(last) = record.moves.last_mut() {
                        *last = action.removing(removal);
                    }
                }
                (MoveToken::Removal(_), None) => {
                    return Err(parse_error(ParseMoveError {
                        token: token.to_owned(),
                        problem: MoveSyntaxProblem::Shape,
                    }));
                }
                (MoveToken::Turn(mv), _) => {
                    pending_action = mv.removal.is_none().then_some(mv);
                    record.moves.push(mv);
                }
            }
        }
    }
    if in_comment {
        return Err(RecordError::Comment {
            line: text.lines().count(),
        });
    }
    records.extend(current);
    Ok(records)
}

/// Reads `[Name "value"]`, with `\"` and `\\` escapes in the value.
fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let (name, value) = inner.split_once(char::is_whitespace)?;
    let value = value.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut unescaped = String::new();
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        unescaped.push(if c == '\\' { chars.next()? } else { c });
    }
    Some((name.to_owned(), unescaped))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(moves: &str, result: GameResult, tags: &[(&str, &str)]) -> GameRecord {
        GameRecord {
            tags: tags
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            moves: moves
                .split_whitespace()
                .map(|t| t.parse().unwrap())
                .collect(),
            result,
            ..GameRecord::default()
        }
    }

    #[test]
    fn the_rules_tags_give_the_rules_back() {
        for variant in Variant::ALL {
            for (flying, full_board) in [true, false].into_iter().zip(FullBoard::ALL) {
                for n_move_rule in [0, 10, Rules::DEFAULT_N_MOVE_RULE, Rules::MAX_N_MOVE_RULE] {
                    let rules = Rules {
                        variant,
                        flying,
                        n_move_rule,
                        full_board,
                    };
                    let record = GameRecord {
                        tags: GameRecord::rules_tags(rules),
                        ..GameRecord::default()
                    };
                    assert_eq!(record.rules(), Ok(rules));
                }
            }
        }
        let too_many = (Rules::MAX_N_MOVE_RULE + 1).to_string();
        let record = record("", GameResult::Unfinished, &[("NMoveRule", &too_many)]);
        assert!(matches!(
            record.rules(),
            Err(RecordError::RulesTag {
                tag: "NMoveRule",
                ..
            })
        ));
    }

    #[test]
    fn records_round_trip() {
        let games = [
            record(
                "d6 d2 b4 f4",
                GameResult::Unfinished,
                &[("White", "a \"quoted\" name"), ("Result", "*")],
            ),
            record(
                "d6-d5xb4 a1",
                GameResult::WhiteWins,
                &[
                    ("FEN", "WW./.W./.../.B...W/B.B/.../.B. b 0 0 0 30"),
                    ("Result", "1-0"),
                ],
            ),
        ];
        let mut games = games.to_vec();
        games[0].comments.insert(0, "book".to_owned());
        games[0]
            .comments
            .insert(3, "+0.25/9 0.30s {braced}".to_owned());
        let text: String = games.iter().map(ToString::to_string).collect();
        games[0]
            .comments
            .insert(3, "+0.25/9 0.30s {braced)".to_owned());
        assert_eq!(parse_records(&text), Ok(games));
        assert!(text.contains("1. d6 {book} d2 2. b4 f4 {+0.25/9"), "{text}");
        assert!(text.contains("30... d6-d5xb4 31. a1 1-0"), "{text}");
    }

    #[test]
    fn the_result_tag_before_other_tags_keeps_one_record() {
        let text = "[Result \"0-1\"]\n[White \"a\"]\n\n1. d6 0-1\n\n[Result \"1-0\"]\n[White \"b\"]\n\n1. d2 1-0\n";
        let records = parse_records(text).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(records[1].tag("White"), Some("b"));
        assert_eq!(records[1].result, GameResult::WhiteWins);
    }

    #[test]
    fn comments_numbers_and_split_removals_are_read() {
        let text = "[Result \"1-0\"]\n\n1. a7 {opening} a1 2. d7 d1 3. g7 xa1\n{a long\ncomment} 3... b6 1-0\n";
        let records = parse_records(text).unwrap();
        assert_eq!(records.len(), 1);
        let moves: Vec<String> = records[0].moves.iter().map(ToString::to_string).collect();
        assert_eq!(moves, ["a7", "a1", "d7", "d1", "g7xa1", "b6"]);
        assert_eq!(records[0].result, GameResult::WhiteWins);
        assert_eq!(
            records[0].comments.get(&0).map(String::as_str),
            Some("opening")
        );
        assert_eq!(
            records[0].comments.get(&4).map(String::as_str),
            Some("a long comment")
        );
        let game = records[0].replay().unwrap();
        assert_eq!(
            game.position().fen(),
            "WWW/B../.../....../.../.../.B. w 6 6 1 4"
        );
    }

    #[test]
    fn bad_records_are_refused() {
        assert_eq!(
            parse_records("[White morris]\n"),
            Err(RecordError::Tag { line: 1 })
        );
        assert!(matches!(
            parse_records("1. d6 h9\n"),
            Err(RecordError::Move { line: 1, .. })
        ));
        assert_eq!(
            parse_records("1. d6 {never closed\n"),
            Err(RecordError::Comment { line: 1 })
        );
        let illegal = parse_records("1. d6 d6\n").unwrap();
        assert!(matches!(
            illegal[0].replay(),
            Err(RecordError::Illegal { index: 2, .. })
        ));
        let variant = parse_records("[Variant \"six\"]\n\n1. d6\n").unwrap();
        assert!(matches!(
            variant[0].replay(),
            Err(RecordError::RulesTag { .. })
        ));
    }
}
