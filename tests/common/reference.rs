//! A second, deliberately plain implementation of docs/RULES.md, sharing no code
//! with the library: points by their coordinates, lines found by walking
//! the drawn rows and columns, the board as an array, moves as text. It is
//! slow and simple on purpose, so that the library's counts can be checked
//! against it.

/// The points in reading order (rank 7 down to 1, left to right), as in a
/// position string. Coordinates: file a..g is x 0..6, rank 1..7 is y 0..6.
pub const POINTS: [&str; 24] = [
    "a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5", "a4", "b4", "c4", "e4", "f4", "g4", "c3",
    "d3", "e3", "b2", "d2", "f2", "a1", "d1", "g1",
];

/// The rules of one variant, as the reference sees them.
#[derive(Clone, Debug)]
pub struct RefRules {
    pub lines: Vec<[usize; 3]>,
    pub flying: bool,
    pub may_slide_while_placing: bool,
}

fn coords(point: usize) -> (i32, i32) {
    let name = POINTS[point].as_bytes();
    (i32::from(name[0] - b'a'), i32::from(name[1] - b'1'))
}

/// Every drawn line: the points of each row and each column, taken three
/// at a time (the middle row and column hold six points: two lines). With
/// `diagonals`, also the corners on each diagonal from the centre outwards.
fn drawn_lines(diagonals: bool) -> Vec<[usize; 3]> {
    let mut lines = Vec::new();
    for horizontal in [true, false] {
        for fixed in 0..7 {
            let mut on_row: Vec<(i32, usize)> = (0..24)
                .filter_map(|p| {
                    let (x, y) = coords(p);
                    let (along, across) = if horizontal { (x, y) } else { (y, x) };
                    (across == fixed).then_some((along, p))
                })
                .collect();
            on_row.sort();
            for three in on_row.chunks(3) {
                lines.push([three[0].1, three[1].1, three[2].1]);
            }
        }
    }
    if diagonals {
        for (dx, dy) in [(-1, 1), (1, 1), (-1, -1), (1, -1)] {
            let mut diagonal: Vec<(i32, usize)> = (0..24)
                .filter_map(|p| {
                    let (x, y) = coords(p);
                    let (cx, cy) = (x - 3, y - 3);
                    (cx.signum() == dx && cy.signum() == dy && cx.abs() == cy.abs())
                        .then_some((cx.abs(), p))
                })
                .collect();
            diagonal.sort();
            lines.push([diagonal[0].1, diagonal[1].1, diagonal[2].1]);
        }
    }
    lines
}

impl RefRules {
    pub fn new(variant: &str, flying: bool) -> RefRules {
        let (diagonals, may_slide_while_placing) = match variant {
            "nine" => (false, false),
            "twelve" => (true, false),
            "lasker" => (false, true),
            other => panic!("unknown variant {other}"),
        };
        RefRules {
            lines: drawn_lines(diagonals),
            flying,
            may_slide_while_placing,
        }
    }

    /// Two points are neighbours when they are consecutive on a line.
    pub fn adjacent(&self, a: usize, b: usize) -> bool {
        self.lines.iter().any(|l| {
            (l[0] == a && l[1] == b)
                || (l[1] == a && l[0] == b)
                || (l[1] == a && l[2] == b)
                || (l[2] == a && l[1] == b)
        })
    }
}

/// A game state: `board[p]` is 0 (empty), 1 (White) or 2 (Black).
#[derive(Clone, Debug)]
pub struct RefPosition {
    pub board: [u8; 24],
    pub hand: [u32; 2],
    /// 1 White, 2 Black.
    pub to_move: u8,
}

/// One turn: (from, to, removed), as point numbers.
pub type RefMove = (Option<usize>, usize, Option<usize>);

impl RefPosition {
    /// Reads the board, side and hands of a position string.
    pub fn from_fen(fen: &str) -> RefPosition {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let cells: Vec<char> = fields[0].chars().filter(|&c| c != '/').collect();
        assert_eq!(cells.len(), 24, "{fen}");
        let mut board = [0; 24];
        for (p, c) in cells.iter().enumerate() {
            board[p] = match c {
                'W' => 1,
                'B' => 2,
                _ => 0,
            };
        }
        RefPosition {
            board,
            hand: [fields[2].parse().unwrap(), fields[3].parse().unwrap()],
            to_move: if fields[1] == "w" { 1 } else { 2 },
        }
    }

    fn on_board(&self, color: u8) -> u32 {
        self.board.iter().filter(|&&c| c == color).count() as u32
    }

    fn in_mill(&self, rules: &RefRules, p: usize) -> bool {
        let color = self.board[p];
        rules
            .lines
            .iter()
            .any(|l| l.contains(&p) && l.iter().all(|&q| self.board[q] == color))
    }

    /// Every legal turn of the side to move.
    pub fn moves(&self, rules: &RefRules) -> Vec<RefMove> {
        let me = self.to_move;
        let other = 3 - me;
        let hand = self.hand[usize::from(me - 1)];
        if self.on_board(me) + hand < 3 {
            return Vec::new();
        }
        let empties: Vec<usize> = (0..24).filter(|&p| self.board[p] == 0).collect();
        let mine: Vec<usize> = (0..24).filter(|&p| self.board[p] == me).collect();
        let mut actions: Vec<(Option<usize>, usize)> = Vec::new();
        if hand > 0 {
            actions.extend(empties.iter().map(|&to| (None, to)));
        }
        let flies = hand == 0 && rules.flying && mine.len() == 3;
        if hand == 0 || rules.may_slide_while_placing {
            for &from in &mine {
                for &to in &empties {
                    if flies || rules.adjacent(from, to) {
                        actions.push((Some(from), to));
                    }
                }
            }
        }
        let mut moves = Vec::new();
        for (from, to) in actions {
            let mut after = self.clone();
            if let Some(from) = from {
                after.board[from] = 0;
            }
            after.board[to] = me;
            if !after.in_mill(rules, to) {
                moves.push((from, to, None));
                continue;
            }
            let theirs: Vec<usize> = (0..24).filter(|&p| self.board[p] == other).collect();
            let unprotected: Vec<usize> = theirs
                .iter()
                .copied()
                .filter(|&p| !self.in_mill(rules, p))
                .collect();
            let candidates = if unprotected.is_empty() {
                theirs
            } else {
                unprotected
            };
            if candidates.is_empty() {
                moves.push((from, to, None));
            }
            for removed in candidates {
                moves.push((from, to, Some(removed)));
            }
        }
        moves
    }

    /// The position after `mv`.
    pub fn after(&self, mv: RefMove) -> RefPosition {
        let (from, to, removed) = mv;
        let mut next = self.clone();
        match from {
            Some(from) => next.board[from] = 0,
            None => next.hand[usize::from(self.to_move - 1)] -= 1,
        }
        next.board[to] = self.to_move;
        if let Some(removed) = removed {
            next.board[removed] = 0;
        }
        next.to_move = 3 - self.to_move;
        next
    }

    /// The number of move sequences of `depth` turns.
    pub fn perft(&self, rules: &RefRules, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.moves(rules)
            .into_iter()
            .map(|mv| self.after(mv).perft(rules, depth - 1))
            .sum()
    }
}

/// A move in the notation of docs/RULES.md.
pub fn notation(mv: RefMove) -> String {
    let (from, to, removed) = mv;
    let mut text = String::new();
    if let Some(from) = from {
        text.push_str(POINTS[from]);
        text.push('-');
    }
    text.push_str(POINTS[to]);
    if let Some(removed) = removed {
        text.push('x');
        text.push_str(POINTS[removed]);
    }
    text
}
