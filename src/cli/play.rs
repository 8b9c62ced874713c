//! `morris play`: a game against the engine in the terminal, for people.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use morris::search::{Limit, MAX_SKILL, SearchLimits, SearchRequest, TranspositionTable};
use morris::solution::Database;
use morris::{Color, FullBoard, Game, IllegalReason, Move, Position, Rules, Square, Variant};

use crate::cli::open_databases;

/// How `play` sets up the game.
#[derive(clap::Args)]
pub struct PlayArgs {
    /// Your colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Random)]
    color: ColorChoice,
    /// The engine's level: easy, medium, hard, or a Skill Level from 0 to 20.
    #[arg(long, default_value = "medium")]
    level: Level,
    /// The engine's time per move, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    movetime: u64,
    /// The game: nine, twelve (morabaraba) or lasker.
    #[arg(long, default_value = "nine")]
    variant: Variant,
    /// Turn flying off.
    #[arg(long)]
    no_flying: bool,
    /// Moves per side without a removal that draw (0: off).
    #[arg(long, default_value_t = Rules::DEFAULT_N_MOVE_RULE)]
    nmoverule: u16,
    /// What a board twelve's last placement fills is: draw, or whiteloses.
    #[arg(long, default_value_t = FullBoard::Draw)]
    full_board: FullBoard,
    /// Folder of databases (from gen-db; default: the default folder, if there).
    #[arg(long)]
    db: Option<PathBuf>,
}

/// The colour a person asks to play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ColorChoice {
    /// White, who moves first.
    White,
    /// Black.
    Black,
    /// Drawn at random.
    Random,
}

/// Plays the game `args` sets up on standard input and output.
pub fn play(args: PlayArgs) -> anyhow::Result<()> {
    let human = match args.color {
        ColorChoice::White => Color::White,
        ColorChoice::Black => Color::Black,
        ColorChoice::Random if rand::random::<bool>() => Color::White,
        ColorChoice::Random => Color::Black,
    };
    let db = match args.db.or_else(morris::solution::existing_default_dir) {
        Some(dir) => {
            let (db, _) = open_databases(&dir)?;
            eprintln!("endgame databases: {} sectors loaded", db.len());
            Some(Arc::new(db))
        }
        None => None,
    };
    let settings = PlaySettings {
        human,
        skill: args.level.skill,
        move_time: Duration::from_millis(args.movetime),
        start: Position::new(Rules {
            flying: !args.no_flying,
            n_move_rule: args.nmoverule,
            full_board: args.full_board,
            ..Rules::new(args.variant)
        }),
        db,
    };
    run(io::stdin().lock(), &mut io::stdout().lock(), settings)?;
    Ok(())
}

/// How the engine plays against a person.
#[derive(Clone)]
struct PlaySettings {
    /// The person's colour.
    pub human: Color,
    /// The engine's `Skill Level`, 0 to 20.
    pub skill: u8,
    /// The engine's time per move.
    pub move_time: Duration,
    /// The position the game starts from (and so its rules).
    pub start: Position,
    /// Endgame databases the engine plays perfectly with, if any.
    pub db: Option<Arc<Database>>,
}

/// The engine's level in a game: `easy`, `medium` or `hard`, or a `Skill
/// Level` from 0 to 20.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    /// The `Skill Level` it plays at.
    pub skill: u8,
}

impl FromStr for Level {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let skill = match text.to_ascii_lowercase().as_str() {
            "easy" => Some(3),
            "medium" => Some(10),
            "hard" => Some(MAX_SKILL),
            number => number.parse().ok().filter(|&n| n <= MAX_SKILL),
        };
        skill
            .map(|skill| Level { skill })
            .ok_or_else(|| format!("'{text}' is not easy, medium, hard or 0 to {MAX_SKILL}"))
    }
}

const HELP: &str = "\
Type a move: a point to place (d6), or from-to to slide or fly (d6-d5).
If it closes a mill you will be asked which stone to remove, or add it: d6-d5xb4.
Commands: moves (list the legal moves), hint, undo (take back your last turn
and the engine's reply), board, help, quit.";

/// The board with the empty points named and the stones as `WW` and `BB`;
/// in Twelve Men's Morris with its diagonals.
fn board_with_names(pos: &Position) -> String {
    const NINE: &str = "\
a7----------d7----------g7
|           |           |
|   b6------d6------f6  |
|   |       |       |   |
|   |   c5--d5--e5  |   |
|   |   |       |   |   |
a4--b4--c4      e4--f4--g4
|   |   |       |   |   |
|   |   c3--d3--e3  |   |
|   |       |       |   |
|   b2------d2------f2  |
|           |           |
a1----------d1----------g1
";
    const TWELVE: &str = "\
a7----------d7----------g7
| \\         |         / |
|   b6------d6------f6  |
|   | \\     |     / |   |
|   |   c5--d5--e5  |   |
|   |   |       |   |   |
a4--b4--c4      e4--f4--g4
|   |   |       |   |   |
|   |   c3--d3--e3  |   |
|   | /     |     \\ |   |
|   b2------d2------f2  |
| /         |         \\ |
a1----------d1----------g1
";
    let template = if pos.rules().variant.has_diagonals() {
        TWELVE
    } else {
        NINE
    };
    let mut text = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find(|c: char| c.is_ascii_lowercase()) {
        text.push_str(&rest[..start]);
        let name = &rest[start..start + 2];
        let cell = match name.parse::<Square>() {
            Ok(sq) if pos.stones(Color::White).contains(sq) => "WW",
            Ok(sq) if pos.stones(Color::Black).contains(sq) => "BB",
            _ => name,
        };
        text.push_str(cell);
        rest = &rest[start + 2..];
    }
    text.push_str(rest);
    text
}

fn status(game: &Game) -> String {
    let pos = game.position();
    let hands = |c: Color| {
        format!(
            "{} in hand, {} on the board",
            pos.in_hand(c),
            pos.stones(c).len()
        )
    };
    format!(
        "{}White (WW): {}\nBlack (BB): {}\n",
        board_with_names(pos),
        hands(Color::White),
        hands(Color::Black)
    )
}

/// The engine's choice in the game's current position, at `skill`.
fn engine_move(
    game: &Game,
    settings: &PlaySettings,
    skill: u8,
    tt: &Arc<TranspositionTable>,
) -> Option<Move> {
    let request = SearchRequest {
        skill,
        db: settings.db.clone(),
        ..SearchRequest::new(
            *game.position(),
            game.keys(),
            SearchLimits {
                limits: vec![Limit::MoveTime(settings.move_time)],
                ..SearchLimits::default()
            },
        )
    };
    request.run(Arc::clone(tt)).best
}

/// Reads the person's move: a full token, or an action followed (after a
/// question) by the stone to remove. `Ok(None)` when the text is a command.
enum Input {
    Move(Move),
    Command(String),
    Invalid(String),
}

fn read_move(game: &Game, line: &str) -> Input {
    let token = line.trim();
    let lower = token.to_ascii_lowercase();
    if ["moves", "hint", "undo", "board", "help", "quit", "exit"].contains(&lower.as_str()) {
        return Input::Command(lower);
    }
    match token.parse::<Move>() {
        Ok(mv) => match game.position().check_move(mv) {
            Ok(()) => Input::Move(mv),
            Err(IllegalReason::MissingRemoval) => Input::Move(mv),
            Err(reason) => Input::Invalid(format!("{mv} is not legal: {reason}.")),
        },
        Err(err) => Input::Invalid(format!("{err}. Type help for help.")),
    }
}

/// Plays a game on `input` and `output` until it ends or the person quits.
///
/// # Errors
///
/// Only a failure to write to `output`.
fn run(input: impl BufRead, output: &mut impl Write, settings: PlaySettings) -> io::Result<()> {
    let mut lines = input.lines();
    let mut game = Game::new(settings.start);
    let tt = match TranspositionTable::new(16) {
        Ok(tt) => Arc::new(tt),
        Err(err) => return writeln!(output, "{err}"),
    };
    writeln!(
        output,
        "You play {}. Type help for the commands.",
        settings.human.name()
    )?;
    writeln!(output, "{}", status(&game))?;
    loop {
        if let Some(outcome) = game.outcome() {
            let verdict = match outcome.winner() {
                Some(winner) if winner == settings.human => "You win!",
                Some(_) => "The engine wins.",
                None => "A draw.",
            };
            writeln!(output, "Game over: {outcome}. {verdict}")?;
            return Ok(());
        }
        if game.position().side_to_move() != settings.human {
            let Some(mv) = engine_move(&game, &settings, settings.skill, &tt) else {
                return writeln!(output, "The engine has no move.");
            };
            if game.try_play(mv).is_err() {
                return writeln!(output, "The engine chose an illegal move {mv}; stopping.");
            }
            writeln!(output, "Engine plays {mv}.\n{}", status(&game))?;
            continue;
        }
        write!(output, "Your move: ")?;
        output.flush()?;
        let Some(Ok(line)) = lines.next() else {
            return writeln!(output, "\nGoodbye.");
        };
        if line.trim().is_empty() {
            continue;
        }
        let mv = match read_move(&game, &line) {
            Input::Move(mv) => mv,
            Input::Invalid(message) => {
                writeln!(output, "{message}")?;
                continue;
            }
            Input::Command(command) => {
                match command.as_str() {
                    "moves" => {
                        let moves: Vec<String> = game
                            .position()
                            .legal_moves()
                            .iter()
                            .map(Move::to_string)
                            .collect();
                        writeln!(output, "Legal moves: {}", moves.join(" "))?;
                    }
                    "hint" => match engine_move(&game, &settings, MAX_SKILL, &tt) {
                        Some(mv) => writeln!(output, "Hint: {mv}")?,
                        None => writeln!(output, "No hint: there is no move.")?,
                    },
                    "undo" => {
                        let keep = undo_length(&game, settings.human);
                        match keep {
                            Some(keep) => {
                                let moves = game.moves()[..keep].to_vec();
                                game = Game::new(*game.start());
                                for mv in moves {
                                    let _ = game.try_play(mv);
                                }
                                writeln!(output, "Taken back.\n{}", status(&game))?;
                            }
                            None => writeln!(output, "Nothing to take back.")?,
                        }
                    }
                    "board" => writeln!(output, "{}", status(&game))?,
                    "help" => writeln!(output, "{HELP}")?,
                    _ => return writeln!(output, "Goodbye."),
                }
                continue;
            }
        };
        let mv = if mv.removal.is_none() && game.position().check_move(mv).is_err() {
            match ask_removal(&mut lines, output, &game, mv)? {
                Some(mv) => mv,
                None => return writeln!(output, "\nGoodbye."),
            }
        } else {
            mv
        };
        match game.try_play(mv) {
            // The engine's moves show the board; a game the person ends
            // shows it here.
            Ok(()) if game.outcome().is_some() => writeln!(output, "{}", status(&game))?,
            Ok(()) => {}
            Err(err) => writeln!(output, "{err}.")?,
        }
    }
}

/// How many moves to keep to take back the person's last turn and the
/// engine's reply, if there is such a turn.
fn undo_length(game: &Game, human: Color) -> Option<usize> {
    let mut side = game.start().side_to_move();
    let mut last_human = None;
    for i in 0..game.moves().len() {
        if side == human {
            last_human = Some(i);
        }
        side = side.opponent();
    }
    last_human
}

/// Asks which stone a mill-closing action removes, again until the answer
/// is one of the removable stones; `None` at the end of input.
fn ask_removal(
    lines: &mut impl Iterator<Item = io::Result<String>>,
    output: &mut impl Write,
    game: &Game,
    action: Move,
) -> io::Result<Option<Move>> {
    let choices = game.position().completions(action);
    let names: Vec<String> = choices
        .iter()
        .filter_map(|m| m.removal)
        .map(|sq| sq.to_string())
        .collect();
    write!(
        output,
        "That closes a mill. Remove which stone ({})? ",
        names.join(", ")
    )?;
    loop {
        output.flush()?;
        let Some(Ok(answer)) = lines.next() else {
            return Ok(None);
        };
        let answer = answer
            .trim()
            .trim_start_matches(['x', 'X'])
            .to_ascii_lowercase();
        if let Some(&mv) = choices
            .iter()
            .find(|m| m.removal.is_some_and(|sq| sq.to_string() == answer))
        {
            return Ok(Some(mv));
        }
        if !answer.is_empty() {
            write!(output, "'{answer}' cannot be removed. ")?;
        }
        write!(output, "Remove which stone ({})? ", names.join(", "))?;
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;
    use std::time::Duration;

    use super::*;
    use morris::Rules;

    fn play(start: Position, human: Color, script: &str) -> String {
        let settings = PlaySettings {
            human,
            skill: 20,
            move_time: Duration::from_millis(20),
            start,
            db: None,
        };
        let mut out = Vec::new();
        run(Cursor::new(script.as_bytes().to_vec()), &mut out, settings).expect("in-memory output");
        String::from_utf8(out).expect("UTF-8")
    }

    #[test]
    fn a_scripted_game_with_a_bad_token_a_hint_and_an_undo() {
        let out = play(
            Position::startpos(),
            Color::White,
            "xx9\nd6\nhint\nundo\nmoves\nquit\n",
        );
        assert!(out.contains("invalid move 'xx9'"), "{out}");
        let engine = out
            .split("Engine plays ")
            .nth(1)
            .expect("the engine replied");
        let reply: Move = engine.split('.').next().unwrap().parse().unwrap();
        let mut pos = Position::startpos();
        pos.play("d6".parse().unwrap());
        assert!(pos.is_legal(reply));
        let hint = out
            .split("Hint: ")
            .nth(1)
            .expect("a hint")
            .lines()
            .next()
            .unwrap();
        pos.play(reply);
        assert!(pos.is_legal(hint.parse().unwrap()), "{hint}");
        let after_undo = out.split("Taken back.").nth(1).expect("undo");
        assert!(
            after_undo.contains("White (WW): 9 in hand, 0 on the board"),
            "{after_undo}"
        );
        assert!(after_undo.contains("Legal moves: a7 d7 g7"));
        assert!(out.trim_end().ends_with("Goodbye."));
    }

    #[test]
    fn a_mill_asks_which_stone_to_remove_and_the_end_is_explained() {
        let start = Position::from_fen(
            "WW./.../.../.W...W/B.B/.../.B. w 0 0 0 30",
            Rules::default(),
        )
        .unwrap();
        // A wrong answer and an empty one ask again; the mill is kept.
        let out = play(start, Color::White, "\ng4-g7\nq9\n\nxc3\n");
        assert!(
            out.contains("That closes a mill. Remove which stone (d1, e3, c3)?"),
            "{out}"
        );
        assert!(
            out.contains("'q9' cannot be removed. Remove which stone (d1, e3, c3)? "),
            "{out}"
        );
        assert!(
            !out.contains("not legal") && !out.contains("invalid"),
            "{out}"
        );
        let end = out
            .split("Game over: white wins (black has fewer than three stones). You win!")
            .next()
            .expect("the end");
        assert_ne!(end, out);
        // The final board is shown: the mill on a7-d7-g7, c3 empty again.
        let board = end.rsplit("Remove which stone").next().unwrap();
        assert!(board.contains("WW----------WW----------WW"), "{board}");
        assert!(board.contains("|   |   c3--d3--BB  |   |"), "{board}");
    }

    #[test]
    fn the_twelve_board_shows_its_diagonals() {
        let out = play(
            Position::new(Rules::new(Variant::Twelve)),
            Color::White,
            "board\nquit\n",
        );
        assert!(out.contains("|   | \\     |     / |   |"), "{out}");
        assert!(out.contains("| /         |         \\ |"), "{out}");
        let nine = play(Position::startpos(), Color::White, "quit\n");
        assert!(!nine.contains('/'), "{nine}");
    }

    #[test]
    fn nothing_to_take_back_at_the_start() {
        let out = play(Position::startpos(), Color::White, "undo\nd6-d5\nquit\n");
        assert!(out.contains("Nothing to take back."));
        assert!(out.contains("d6-d5 is not legal: stones in hand must be placed first."));
    }

    #[test]
    fn levels_are_named_or_numbered() {
        assert_eq!("easy".parse(), Ok(Level { skill: 3 }));
        assert_eq!("Medium".parse(), Ok(Level { skill: 10 }));
        assert_eq!("hard".parse(), Ok(Level { skill: 20 }));
        assert_eq!("7".parse(), Ok(Level { skill: 7 }));
        assert!("21".parse::<Level>().is_err());
        assert!("expert".parse::<Level>().is_err());
    }
}
