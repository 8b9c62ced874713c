//! Each rule of docs/RULES.md on a hand-built position.

use morris::{
    Color, DrawReason, FullBoard, Game, IllegalReason, Move, Outcome, Phase, Position, Rules,
    Square, Variant, WinReason,
};

fn position(fen: &str, rules: Rules) -> Position {
    Position::from_fen(fen, rules).unwrap_or_else(|err| panic!("{fen}: {err}"))
}

fn nine(fen: &str) -> Position {
    position(fen, Rules::default())
}

fn tokens(pos: &Position) -> Vec<String> {
    let mut tokens: Vec<String> = pos.legal_moves().iter().map(Move::to_string).collect();
    tokens.sort();
    tokens
}

fn mv(token: &str) -> Move {
    token.parse().unwrap()
}

fn refusal(pos: &Position, token: &str) -> IllegalReason {
    pos.check_move(mv(token))
        .expect_err(&format!("{token} accepted in {pos}"))
}

fn play(pos: &mut Position, line: &str) {
    for token in line.split_whitespace() {
        pos.try_play(mv(token)).unwrap();
    }
}

#[test]
fn placing_uses_any_empty_point_and_nothing_else() {
    let pos = nine(".../.W./.../.W..../.../.B./... b 7 8 3 2");
    let moves = tokens(&pos);
    assert_eq!(moves.len(), 21);
    assert!(pos.legal_moves().iter().all(|m| m.is_placement()));
    assert_eq!(refusal(&pos, "d6"), IllegalReason::Occupied(Square::D6));
    assert_eq!(refusal(&pos, "d2-d3"), IllegalReason::MustPlace);
    assert_eq!(pos.phase(Color::Black), Phase::Placing);
}

#[test]
fn all_stones_are_placed_before_anyone_moves() {
    let mut pos = Position::startpos();
    for ply in 0..18 {
        let moves = pos.legal_moves();
        assert!(moves.iter().all(|m| m.is_placement()), "ply {ply}");
        pos.play_unchecked(moves[moves.len() / 2]);
    }
    assert_eq!(
        (pos.in_hand(Color::White), pos.in_hand(Color::Black)),
        (0, 0)
    );
    assert_eq!(pos.side_to_move(), Color::White);
    assert_eq!(pos.phase(Color::White), Phase::Moving);
    assert!(!pos.legal_moves().is_empty());
    assert!(pos.legal_moves().iter().all(|m| !m.is_placement()));
    assert_eq!(refusal(&pos, "d6"), IllegalReason::NothingInHand);
}

#[test]
fn stones_slide_to_neighbouring_empty_points_only() {
    let pos = nine("WWB/BW./WB./B.WBW./.B./W.B/... w 0 0 10 20");
    let moves = tokens(&pos);
    assert!(moves.contains(&"b2-b4".to_string()));
    assert!(moves.contains(&"b2-d2".to_string()));
    assert_eq!(
        refusal(&pos, "b2-a1"),
        IllegalReason::NotNeighbor {
            from: Square::B2,
            to: Square::A1
        }
    );
    assert_eq!(refusal(&pos, "b2-d6"), IllegalReason::Occupied(Square::D6));
    assert_eq!(
        refusal(&pos, "g7-g4"),
        IllegalReason::NotOwnStone(Square::G7)
    );
    assert_eq!(
        refusal(&pos, "a1-d1"),
        IllegalReason::NotOwnStone(Square::A1)
    );
}

#[test]
fn a_side_with_three_stones_flies_and_the_other_keeps_sliding() {
    let fen = "W../.B./..W/BB..W./.B./B../..B w 0 0 3 30";
    let white = nine(fen);
    assert_eq!(white.phase(Color::White), Phase::Flying);
    assert_eq!(white.legal_moves().len(), 3 * 15);
    assert!(white.is_legal(mv("a7-d1")));
    let black = nine(&fen.replace(" w ", " b "));
    assert_eq!(black.phase(Color::Black), Phase::Moving);
    assert_eq!(
        refusal(&black, "d6-d1"),
        IllegalReason::NotNeighbor {
            from: Square::D6,
            to: Square::D1
        }
    );
}

#[test]
fn flying_needs_exactly_three_stones_and_an_empty_hand() {
    // Four stones: sliding.
    let four = nine("W../.B./..W/BB..WW/.B./B../..B w 0 0 3 30");
    assert_eq!(four.phase(Color::White), Phase::Moving);
    assert!(!four.is_legal(mv("a7-d1")));
    // Three on the board and one in hand (Lasker Morris): placing, and a
    // slide may replace the placement, but no flight.
    let lasker = position(
        "W../.B./..W/BB..W./.B./B../..B w 1 2 3 30",
        Rules::new(Variant::Lasker),
    );
    assert_eq!(lasker.phase(Color::White), Phase::Placing);
    assert!(lasker.is_legal(mv("a7-d7")));
    assert!(!lasker.is_legal(mv("a7-d1")));
}

#[test]
fn flying_can_be_turned_off() {
    let rules = Rules {
        flying: false,
        ..Rules::default()
    };
    let pos = position("W../.B./..W/BB..W./.B./B../..B w 0 0 3 30", rules);
    assert_eq!(pos.phase(Color::White), Phase::Moving);
    assert_eq!(
        refusal(&pos, "a7-d1"),
        IllegalReason::NotNeighbor {
            from: Square::A7,
            to: Square::D1
        }
    );
    assert_eq!(
        tokens(&pos),
        [
            "a7-d7", "e5-d5", "e5-e4", "f4-e4", "f4-f2", "f4-f6", "f4-g4"
        ]
    );
}

#[test]
fn sliding_along_a_line_never_closes_that_line() {
    let pos = nine(".W./.W./.../....../.../BBB/W.W w 0 0 0 20");
    assert!(pos.is_legal(mv("d6-d5")));
    assert_eq!(refusal(&pos, "d6-d5xb2"), IllegalReason::NoMill);
}

#[test]
fn moving_out_of_a_mill_and_back_closes_it_again() {
    let mut pos = nine("WWW/.../.../..W.../B.B/.BB/... w 0 0 0 20");
    play(&mut pos, "g7-g4 f2-f4");
    assert_eq!(refusal(&pos, "g4-g7"), IllegalReason::MissingRemoval);
    let back: Vec<String> = tokens(&pos)
        .into_iter()
        .filter(|t| t.starts_with("g4-g7"))
        .collect();
    assert_eq!(back, ["g4-g7xc3", "g4-g7xd2", "g4-g7xe3", "g4-g7xf4"]);
}

#[test]
fn stones_in_mills_are_protected_while_others_are_not() {
    let pos = nine("BBB/.../.../BW..W./.../.WW/... w 0 0 6 25");
    let closing: Vec<String> = tokens(&pos)
        .into_iter()
        .filter(|t| t.starts_with("b4-b2"))
        .collect();
    assert_eq!(closing, ["b4-b2xa4"]);
    assert_eq!(
        refusal(&pos, "b4-b2xd7"),
        IllegalReason::ProtectedStone(Square::D7)
    );
    assert_eq!(
        refusal(&pos, "b4-b2xd2"),
        IllegalReason::NotOpponentStone(Square::D2)
    );
    assert_eq!(
        refusal(&pos, "b4-b2xb6"),
        IllegalReason::NotOpponentStone(Square::B6)
    );
}

#[test]
fn any_stone_may_be_removed_when_all_stand_in_mills() {
    let pos = nine("BBB/.../.../BW..W./.../.WW/B.. w 0 0 6 25");
    let closing: Vec<String> = tokens(&pos)
        .into_iter()
        .filter(|t| t.starts_with("b4-b2"))
        .collect();
    assert_eq!(
        closing,
        ["b4-b2xa1", "b4-b2xa4", "b4-b2xa7", "b4-b2xd7", "b4-b2xg7"]
    );
}

#[test]
fn a_double_mill_removes_one_stone() {
    let mut pos = nine("W.W/.W./.W./....../.../.../BBB w 5 5 0 5");
    let at_d7: Vec<String> = tokens(&pos)
        .into_iter()
        .filter(|t| t.starts_with("d7"))
        .collect();
    assert_eq!(at_d7, ["d7xa1", "d7xd1", "d7xg1"]);
    play(&mut pos, "d7xd1");
    assert_eq!(pos.stones(Color::Black).len(), 2);
    assert_eq!(pos.stone_count(Color::Black), 7);
    assert_eq!(pos.plies_since_removal(), 0);
}

#[test]
fn a_removed_stone_leaves_the_game() {
    let mut pos = nine("W.W/.W./.W./....../.../.../BBB w 5 5 0 5");
    play(&mut pos, "d7xa1 b2");
    // The stone placed on b2 came from the hand, not back from the removal.
    assert_eq!(pos.in_hand(Color::Black), 4);
    assert_eq!(pos.stone_count(Color::Black), 7);
}

#[test]
fn a_mill_against_an_empty_board_removes_nothing() {
    let mut pos = nine("WW./.../.../....../.../.../... w 7 7 4 3");
    assert!(tokens(&pos).contains(&"g7".to_string()));
    assert_eq!(
        refusal(&pos, "g7xa1"),
        IllegalReason::NotOpponentStone(Square::A1)
    );
    play(&mut pos, "g7");
    assert_eq!(pos.plies_since_removal(), 5);
}

#[test]
fn fewer_than_three_stones_loses_at_once() {
    let mut pos = nine("WW./.../.../.W...W/B.B/.../.B. w 0 0 0 30");
    assert_eq!(pos.terminal_outcome(), None);
    play(&mut pos, "g4-g7xc3");
    let lost = Outcome::Win {
        winner: Color::White,
        reason: WinReason::TooFewStones,
    };
    assert_eq!(pos.terminal_outcome(), Some(lost));
    assert!(pos.legal_moves().is_empty());
    assert_eq!(pos.count_legal_moves(), 0);
    assert_eq!(refusal(&pos, "e3-e4"), IllegalReason::GameOver);
    assert_eq!(
        lost.to_string(),
        "white wins (black has fewer than three stones)"
    );
}

#[test]
fn stones_in_hand_count_towards_the_three() {
    let mut pos = nine("WW./.../.../....../B../.../..B w 1 1 2 8");
    assert_eq!(pos.terminal_outcome(), None);
    play(&mut pos, "g7xc3");
    assert_eq!(pos.stone_count(Color::Black), 2);
    assert_eq!(
        pos.terminal_outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::TooFewStones
        })
    );
}

#[test]
fn a_blocked_side_loses() {
    let pos = nine("BWB/.W./.../W....W/.../.W./BWB b 0 0 2 22");
    let blocked = Outcome::Win {
        winner: Color::White,
        reason: WinReason::Blocked,
    };
    assert_eq!(pos.terminal_outcome(), Some(blocked));
    assert_eq!(blocked.to_string(), "white wins (black is blocked)");
    let one_exit = nine("BWB/.W./.../W...W./.../.W./BWB b 0 0 2 22");
    assert_eq!(tokens(&one_exit), ["g1-g4", "g7-g4"]);
    assert_eq!(one_exit.terminal_outcome(), None);
}

#[test]
fn a_flying_side_is_never_blocked() {
    let fen = "BWB/.W./.../W....W/.../.W./BW. b 0 0 2 22";
    let flying = nine(fen);
    assert_eq!(flying.legal_moves().len(), 3 * 15);
    assert_eq!(flying.terminal_outcome(), None);
    let sliding = position(
        fen,
        Rules {
            flying: false,
            ..Rules::default()
        },
    );
    assert_eq!(
        sliding.terminal_outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::Blocked
        })
    );
}

#[test]
fn a_side_with_stones_in_hand_is_never_blocked() {
    let pos = nine("BW./W../.../....../.../.../... b 7 8 4 3");
    assert!(pos.legal_moves().iter().all(|m| m.is_placement()));
    assert_eq!(pos.legal_moves().len(), 21);
}

#[test]
fn threefold_repetition_draws() {
    let start = nine("WWB/BW./WB./B.WBW./.B./W.B/... w 0 0 10 20");
    let mut game = Game::new(start);
    for token in "b2-d2 d3-c3 d2-b2 c3-d3".split_whitespace() {
        game.try_play(mv(token)).unwrap();
    }
    assert_eq!(game.repetitions(), 2);
    assert_eq!(game.outcome(), None);
    for token in "b2-d2 d3-c3 d2-b2".split_whitespace() {
        game.try_play(mv(token)).unwrap();
        assert_eq!(game.outcome(), None);
    }
    game.try_play(mv("c3-d3")).unwrap();
    let draw = Outcome::Draw {
        reason: DrawReason::Repetition,
    };
    assert_eq!(game.repetitions(), 3);
    assert_eq!(game.outcome(), Some(draw));
    assert_eq!(draw.to_string(), "draw (threefold repetition)");
    let err = game.try_play(mv("b2-d2")).unwrap_err();
    assert_eq!(err.reason, IllegalReason::GameOver);
    assert_eq!(game.moves().len(), 8);
}

#[test]
fn hands_are_part_of_the_position() {
    let a = nine("W../.../.../....../.../.../..B w 8 8 2 2");
    let b = nine("W../.../.../....../.../.../..B w 7 7 2 2");
    assert_ne!(a.key(), b.key());
    let c = nine("W../.../.../....../.../.../..B b 7 8 2 2");
    assert_ne!(b.key(), c.key());
}

#[test]
fn the_n_move_rule_draws_and_placements_count() {
    let rules = Rules {
        n_move_rule: 1,
        ..Rules::default()
    };
    let mut game = Game::new(Position::new(rules));
    game.try_play(mv("d6")).unwrap();
    assert_eq!(game.outcome(), None);
    game.try_play(mv("d2")).unwrap();
    assert_eq!(
        game.outcome(),
        Some(Outcome::Draw {
            reason: DrawReason::NMoveRule
        })
    );
}

#[test]
fn the_n_move_count_goes_on_from_the_position_string() {
    let fen = "BWB/.W./.../W...W./.../.W./BWB w 0 0 59 22";
    let mut game = Game::new(nine(fen));
    game.try_play(mv("d6-d5")).unwrap();
    assert_eq!(
        game.outcome(),
        Some(Outcome::Draw {
            reason: DrawReason::NMoveRule
        })
    );
    let off = Rules {
        n_move_rule: 0,
        ..Rules::default()
    };
    let mut game = Game::new(position(fen, off));
    game.try_play(mv("d6-d5")).unwrap();
    assert_eq!(game.outcome(), None);
    let fifty = Rules {
        n_move_rule: 50,
        ..Rules::default()
    };
    let mut game = Game::new(position(fen, fifty));
    game.try_play(mv("d6-d5")).unwrap();
    assert_eq!(game.outcome(), None);
}

#[test]
fn a_win_on_the_drawing_ply_wins() {
    let mut game = Game::new(nine("BWB/.W./.../W...W./.../.W./BWB w 0 0 59 22"));
    game.try_play(mv("f4-g4")).unwrap();
    assert_eq!(game.position().plies_since_removal(), 60);
    assert_eq!(
        game.outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::Blocked
        })
    );
}

#[test]
fn a_removal_restarts_the_n_move_count() {
    let mut pos = nine("BBB/.../.../BW..W./.../.WW/B.. w 0 0 57 25");
    play(&mut pos, "b4-b2xa1");
    assert_eq!(pos.plies_since_removal(), 0);
    assert!(!pos.n_move_rule_reached());
}

#[test]
fn twelve_has_diagonal_lines_and_neighbours() {
    let fen = "W../W../.../....../.../.../BB. w 7 7 0 3";
    let twelve = position(fen, Rules::new(Variant::Twelve));
    let at_c5: Vec<String> = tokens(&twelve)
        .into_iter()
        .filter(|t| t.starts_with("c5"))
        .collect();
    assert_eq!(at_c5, ["c5xa1", "c5xd1"]);
    assert!(tokens(&nine(fen)).contains(&"c5".to_string()));
    let fen = "W../.../.../W....W/W../.../BBB w 0 0 0 40";
    assert!(position(fen, Rules::new(Variant::Twelve)).is_legal(mv("a7-b6")));
    assert!(!nine(fen).is_legal(mv("a7-b6")));
}

#[test]
fn a_full_board_in_twelve_is_a_draw_before_it_is_blocked() {
    let pos = position(
        "WBW/BWB/WBW/BWBWBW/BWB/WBW/BWB w 0 0 0 13",
        Rules::new(Variant::Twelve),
    );
    assert!(pos.legal_moves().is_empty());
    let draw = Outcome::Draw {
        reason: DrawReason::FullBoard,
    };
    assert_eq!(pos.terminal_outcome(), Some(draw));
    assert_eq!(draw.to_string(), "draw (full board)");
    // Under Sanmill's rule, White, who placed first, loses.
    let rules = Rules {
        full_board: FullBoard::WhiteLoses,
        ..Rules::new(Variant::Twelve)
    };
    let pos = position("WBW/BWB/WBW/BWBWBW/BWB/WBW/BWB w 0 0 0 13", rules);
    let lost = pos.terminal_outcome().expect("over");
    assert_eq!(lost.winner(), Some(Color::Black));
    assert_eq!(
        lost.to_string(),
        "black wins (white placed first on a full board)"
    );
    // Nine cannot fill its board: the rule changes nothing there.
    assert_eq!(Rules::new(Variant::Nine).full_board, FullBoard::Draw);
}

#[test]
fn lasker_may_slide_instead_of_placing() {
    let pos = position(
        "WW./.B./B../W.B..W/.../.B./... w 6 6 1 5",
        Rules::new(Variant::Lasker),
    );
    let moves = tokens(&pos);
    assert!(moves.contains(&"d7-g7".to_string()));
    assert!(moves.contains(&"b6".to_string()));
    let placed_on: morris::Bitboard = pos
        .legal_moves()
        .iter()
        .filter(|m| m.is_placement())
        .map(|m| m.to)
        .collect();
    assert_eq!(placed_on, pos.empty());
    assert_eq!(
        refusal(&pos, "d7-g1"),
        IllegalReason::NotNeighbor {
            from: Square::D7,
            to: Square::G1
        }
    );
}

#[test]
fn completions_finish_the_given_action_only() {
    // In Lasker Morris a placement on g7 and slides from g7 share a prefix
    // in writing; only the placement's removals complete the placement.
    let pos = position(
        "WW./.B./B../W.B..W/.../.B./... w 6 6 1 5",
        Rules::new(Variant::Lasker),
    );
    let mut placement: Vec<String> = pos
        .completions(mv("g7"))
        .iter()
        .map(Move::to_string)
        .collect();
    placement.sort();
    assert_eq!(placement, ["g7xc4", "g7xc5", "g7xd2", "g7xd6"]);
    let slide: Vec<String> = pos
        .completions(mv("d7-g7"))
        .iter()
        .map(Move::to_string)
        .collect();
    assert_eq!(slide, ["d7-g7"]);
}
