//! The board's geometry as data: lines (mills), neighbours and the mills
//! through each point, one table set per line layout, built at compile time.
//!
//! Everything here derives from the list of lines: two points are
//! neighbours when they are consecutive on a line, which holds for every
//! drawn line of the board. A variant with other lines is one more list.

use crate::board::{Bitboard, Square};

/// The most lines any variant has (16 plus 4 diagonals).
const MAX_LINES: usize = 20;
/// The most lines through one point (a corner with its diagonal).
const MAX_LINES_THROUGH: usize = 3;

/// The geometry of one board layout.
#[derive(Debug)]
pub struct Tables {
    lines: [Bitboard; MAX_LINES],
    line_count: usize,
    neighbors: [Bitboard; Square::NUM],
    lines_through: [[Bitboard; MAX_LINES_THROUGH]; Square::NUM],
    lines_through_count: [u8; Square::NUM],
    crossings: Bitboard,
}

impl Tables {
    /// Every line of three (mill) of the layout.
    #[inline]
    pub fn mills(&self) -> &[Bitboard] {
        &self.lines[..self.line_count]
    }

    /// The points joined to `sq` by a drawn line with no point between.
    #[inline]
    pub fn neighbors(&self, sq: Square) -> Bitboard {
        self.neighbors[sq.index()]
    }

    /// The mills that pass through `sq`.
    #[inline]
    pub fn mills_through(&self, sq: Square) -> &[Bitboard] {
        &self.lines_through[sq.index()][..self.lines_through_count[sq.index()] as usize]
    }

    /// The points with four neighbours, where lines cross.
    #[inline]
    pub fn crossings(&self) -> Bitboard {
        self.crossings
    }

    /// Whether a stone arriving on `to` completes a mill with `own`.
    ///
    /// `own` is the side's stones after the moving stone has left its
    /// origin; whether it holds `to` does not matter.
    #[inline]
    pub fn closes_mill(&self, own: Bitboard, to: Square) -> bool {
        let own = own.with(to);
        self.mills_through(to)
            .iter()
            .any(|&mill| own.is_superset(mill))
    }

    /// The points of `stones` that stand in a mill of those stones.
    #[inline]
    pub fn stones_in_mills(&self, stones: Bitboard) -> Bitboard {
        self.mills()
            .iter()
            .filter(|&&mill| stones.is_superset(mill))
            .fold(Bitboard::EMPTY, |acc, &mill| acc | mill)
    }

    /// The stones of `theirs` a mill closed against them may remove: those in
    /// no mill, or all of them when every one stands in a mill.
    #[inline]
    pub fn removable(&self, theirs: Bitboard) -> Bitboard {
        let free = theirs - self.stones_in_mills(theirs);
        if free.is_empty() { theirs } else { free }
    }

    /// The empty points on which a stone would complete a mill with `own`.
    #[inline]
    pub fn closing_points(&self, own: Bitboard, empty: Bitboard) -> Bitboard {
        let mut points = Bitboard::EMPTY;
        for &mill in self.mills() {
            let gap = mill - own;
            if gap.len() == 1 && empty.is_superset(gap) {
                points |= gap;
            }
        }
        points
    }
}

/// Builds the tables of a layout from its lines, each listed end, middle, end.
///
/// Panics (at compile time, as every caller is a `const`) unless each line
/// is three distinct points and each point lies on two or three lines.
const fn build(line_points: &[[Square; 3]]) -> Tables {
    assert!(line_points.len() <= MAX_LINES);
    let mut tables = Tables {
        lines: [Bitboard::EMPTY; MAX_LINES],
        line_count: line_points.len(),
        neighbors: [Bitboard::EMPTY; Square::NUM],
        lines_through: [[Bitboard::EMPTY; MAX_LINES_THROUGH]; Square::NUM],
        lines_through_count: [0; Square::NUM],
        crossings: Bitboard::EMPTY,
    };
    let mut i = 0;
    while i < line_points.len() {
        let [end, middle, other_end] = line_points[i];
        let mask = Bitboard::from_squares(&line_points[i]);
        assert!(mask.len() == 3);
        tables.lines[i] = mask;
        tables.neighbors[end.index()] = tables.neighbors[end.index()].with(middle);
        tables.neighbors[middle.index()] =
            tables.neighbors[middle.index()].with(end).with(other_end);
        tables.neighbors[other_end.index()] = tables.neighbors[other_end.index()].with(middle);
        let mut j = 0;
        while j < 3 {
            let sq = line_points[i][j].index();
            let count = tables.lines_through_count[sq] as usize;
            assert!(count < MAX_LINES_THROUGH);
            tables.lines_through[sq][count] = mask;
            tables.lines_through_count[sq] += 1;
            j += 1;
        }
        i += 1;
    }
    let mut sq = 0;
    while sq < Square::NUM {
        assert!(tables.lines_through_count[sq] >= 2);
        if tables.neighbors[sq].len() == 4 {
            tables.crossings = tables.crossings.with(Square::ALL[sq]);
        }
        sq += 1;
    }
    tables
}

/// The 16 lines of Nine Men's Morris: the four sides of each square, then
/// the four spokes, each listed end, middle, end.
const fn standard_lines() -> [[Square; 3]; 16] {
    let mut lines = [[Square::A7; 3]; 16];
    let mut ring = 0;
    while ring < 3 {
        let mut side = 0;
        while side < 4 {
            let corner = 2 * side;
            lines[ring * 4 + side] = [
                Square::from_ring_place(ring, corner),
                Square::from_ring_place(ring, corner + 1),
                Square::from_ring_place(ring, corner + 2),
            ];
            side += 1;
        }
        ring += 1;
    }
    let mut spoke = 0;
    while spoke < 4 {
        let midpoint = 2 * spoke + 1;
        lines[12 + spoke] = [
            Square::from_ring_place(0, midpoint),
            Square::from_ring_place(1, midpoint),
            Square::from_ring_place(2, midpoint),
        ];
        spoke += 1;
    }
    lines
}

/// The standard lines plus the four corner diagonals of Twelve Men's Morris.
const fn diagonal_lines() -> [[Square; 3]; 20] {
    let standard = standard_lines();
    let mut lines = [[Square::A7; 3]; 20];
    let mut i = 0;
    while i < 16 {
        lines[i] = standard[i];
        i += 1;
    }
    let mut diagonal = 0;
    while diagonal < 4 {
        let corner = 2 * diagonal;
        lines[16 + diagonal] = [
            Square::from_ring_place(0, corner),
            Square::from_ring_place(1, corner),
            Square::from_ring_place(2, corner),
        ];
        diagonal += 1;
    }
    lines
}

/// The board of Nine Men's Morris and Lasker Morris.
pub(crate) static STANDARD: Tables = build(&standard_lines());

/// The board of Twelve Men's Morris, with the four diagonals.
pub(crate) static DIAGONAL: Tables = build(&diagonal_lines());

#[cfg(test)]
mod tests {
    use super::*;
    use Square::*;

    fn sorted_names(bb: Bitboard) -> Vec<String> {
        let mut names: Vec<String> = bb.iter().map(|s| s.to_string()).collect();
        names.sort();
        names
    }

    #[test]
    fn sixteen_mills_and_every_point_on_exactly_two() {
        assert_eq!(STANDARD.mills().len(), 16);
        for sq in Square::ALL {
            let through = STANDARD.mills().iter().filter(|m| m.contains(sq)).count();
            assert_eq!(through, 2, "{sq}");
            assert_eq!(STANDARD.mills_through(sq).len(), 2);
        }
        let mut distinct = STANDARD.mills().to_vec();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 16);
    }

    #[test]
    fn the_drawn_lines_are_the_mills() {
        let expected: [[Square; 3]; 16] = [
            [A7, D7, G7],
            [B6, D6, F6],
            [C5, D5, E5],
            [A4, B4, C4],
            [E4, F4, G4],
            [C3, D3, E3],
            [B2, D2, F2],
            [A1, D1, G1],
            [A7, A4, A1],
            [B6, B4, B2],
            [C5, C4, C3],
            [D7, D6, D5],
            [D3, D2, D1],
            [E5, E4, E3],
            [F6, F4, F2],
            [G7, G4, G1],
        ];
        let mut want: Vec<Bitboard> = expected.iter().map(|l| Bitboard::from_squares(l)).collect();
        let mut have = STANDARD.mills().to_vec();
        want.sort();
        have.sort();
        assert_eq!(have, want);
        assert!(
            !STANDARD
                .mills()
                .contains(&Bitboard::from_squares(&[A7, B6, C5]))
        );
    }

    #[test]
    fn neighbour_counts_are_four_three_two() {
        for sq in Square::ALL {
            let expected = match sq {
                D6 | B4 | F4 | D2 => 4,
                _ if sq.place() % 2 == 1 => 3,
                _ => 2,
            };
            assert_eq!(STANDARD.neighbors(sq).len(), expected, "{sq}");
        }
        assert_eq!(
            sorted_names(STANDARD.neighbors(D6)),
            ["b6", "d5", "d7", "f6"]
        );
        assert_eq!(sorted_names(STANDARD.neighbors(A7)), ["a4", "d7"]);
        assert_eq!(sorted_names(STANDARD.neighbors(C4)), ["b4", "c3", "c5"]);
        assert_eq!(sorted_names(STANDARD.crossings()), ["b4", "d2", "d6", "f4"]);
    }

    #[test]
    fn adjacency_is_symmetric_and_irreflexive() {
        for tables in [&STANDARD, &DIAGONAL] {
            for a in Square::ALL {
                assert!(!tables.neighbors(a).contains(a));
                for b in tables.neighbors(a) {
                    assert!(tables.neighbors(b).contains(a), "{a} {b}");
                }
            }
        }
    }

    #[test]
    fn diagonal_layout_adds_four_lines_through_corners() {
        assert_eq!(DIAGONAL.mills().len(), 20);
        for sq in Square::ALL {
            let corner = sq.place() % 2 == 0;
            assert_eq!(DIAGONAL.mills_through(sq).len(), if corner { 3 } else { 2 });
        }
        assert!(
            DIAGONAL
                .mills()
                .contains(&Bitboard::from_squares(&[A7, B6, C5]))
        );
        assert!(
            DIAGONAL
                .mills()
                .contains(&Bitboard::from_squares(&[G1, F2, E3]))
        );
        assert_eq!(
            sorted_names(DIAGONAL.neighbors(B6)),
            ["a7", "b4", "c5", "d6"]
        );
        assert_eq!(
            sorted_names(DIAGONAL.crossings()),
            ["b2", "b4", "b6", "d2", "d6", "f2", "f4", "f6"]
        );
    }

    #[test]
    fn mill_helpers() {
        let own = Bitboard::from_squares(&[A7, D7, B6, D6]);
        assert!(STANDARD.closes_mill(own, G7));
        assert!(STANDARD.closes_mill(own, F6));
        assert!(STANDARD.closes_mill(own, D5));
        assert!(!STANDARD.closes_mill(own, C5));
        assert_eq!(
            STANDARD.closing_points(own, !own),
            Bitboard::from_squares(&[G7, F6, D5])
        );
        let in_mill = own.with(G7);
        assert_eq!(
            STANDARD.stones_in_mills(in_mill),
            Bitboard::from_squares(&[A7, D7, G7])
        );
    }
}
