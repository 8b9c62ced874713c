//! Retrograde analysis where placing and moving are interleaved (Lasker
//! Morris: a side with stones in hand may slide one instead of placing):
//! the exact value of every position of a sector with stones in hand and
//! of its twin, given the values of the sectors its placements and
//! removals lead to.
//!
//! A slide that removes nothing keeps every count, and leads from a
//! sector to its twin (the same stones, the other side to move), so the
//! two are solved together as the moving phase's pairs are (see
//! `moving`): step 1 here looks at every position once, and steps 2 and 3
//! are the moving phase's. Every other move places or removes a stone, and
//! leads out of the pair to a sector solved before. A placement that
//! removes nothing does not reset the plies to the next removal: it is
//! worth one ply more than the position it leads to, so the best move out
//! of a position can win or lose at any distance, and step 2 takes it
//! into account when it reaches that distance (see `Exits`).

use std::sync::atomic::Ordering;

use arrayvec::ArrayVec;
use rayon::prelude::*;

use super::moving::{BuildStep, SIXTEENTHS, WAY_OUT, Working, solve_within, value_entry};
use super::placing::MissingSuccessor;
use crate::board::{Bitboard, Tables};
use crate::solution::format::moving::{BuiltSector, Kept, MovingFile};
use crate::solution::format::reader::Reads;
use crate::solution::index::{MIN_STONES, WithMover, classes_of, subsets};
use crate::solution::probe::Database;
use crate::solution::sector::Sector;
use crate::solution::value::{DbOutcome, DbValue};

/// The values of a solved sector, by index.
pub trait SectorValues: Sync {
    /// The outcome at `index`: `None` for an index that is not a position.
    fn outcome(&self, index: u64) -> Option<DbOutcome>;

    /// The distance at `index`, whose outcome is the win or loss `outcome`.
    fn distance(&self, index: u64, outcome: DbOutcome) -> Option<u16>;

    /// The value at `index`: `None` for an index that is not a position.
    fn value(&self, index: u64) -> Option<DbValue> {
        let outcome = self.outcome(index)?;
        if outcome == DbOutcome::Draw {
            return Some(DbValue::draw());
        }
        let distance = self.distance(index, outcome)?;
        Some(DbValue { outcome, distance })
    }
}

impl SectorValues for BuiltSector {
    fn outcome(&self, index: u64) -> Option<DbOutcome> {
        let entry = *self.values.get(usize::try_from(index).ok()?)?;
        Some(DbValue::decode(entry)?.outcome)
    }

    fn distance(&self, index: u64, _: DbOutcome) -> Option<u16> {
        let entry = *self.values.get(usize::try_from(index).ok()?)?;
        Some(DbValue::decode(entry)?.distance)
    }
}

impl SectorValues for MovingFile {
    fn outcome(&self, index: u64) -> Option<DbOutcome> {
        MovingFile::outcome(self, index)
    }

    fn distance(&self, index: u64, outcome: DbOutcome) -> Option<u16> {
        self.distance_with(index, outcome, Reads::Wait).ok()?
    }
}

/// The sectors already solved that a build reads.
pub trait SolvedSectors: Sync {
    /// The values of `sector`, if it is solved: its outcomes, and its
    /// distances where it keeps them.
    fn outcomes(&self, sector: Sector) -> Option<&dyn SectorValues>;

    /// The values of `sector` with every distance, if it is solved and
    /// keeps them all.
    fn values(&self, sector: Sector) -> Option<&dyn SectorValues>;
}

impl<T: SolvedSectors + ?Sized> SolvedSectors for &T {
    fn outcomes(&self, sector: Sector) -> Option<&dyn SectorValues> {
        (**self).outcomes(sector)
    }

    fn values(&self, sector: Sector) -> Option<&dyn SectorValues> {
        (**self).values(sector)
    }
}

impl<S: std::hash::BuildHasher + Sync> SolvedSectors
    for std::collections::HashMap<Sector, BuiltSector, S>
{
    fn outcomes(&self, sector: Sector) -> Option<&dyn SectorValues> {
        SolvedSectors::values(self, sector)
    }

    fn values(&self, sector: Sector) -> Option<&dyn SectorValues> {
        self.get(&sector).map(|built| built as &dyn SectorValues)
    }
}

impl SolvedSectors for Database {
    fn outcomes(&self, sector: Sector) -> Option<&dyn SectorValues> {
        let file = self.file_with_distances(sector)?;
        Some(file as &dyn SectorValues)
    }

    fn values(&self, sector: Sector) -> Option<&dyn SectorValues> {
        // A file keeps every distance until the build that reads them is
        // done (see `Sector::placed_from`).
        let file = self.file_with_distances(sector)?;
        (file.kept() == Kept::All).then_some(file as &dyn SectorValues)
    }
}

/// Builds `sector`, which has stones in hand, and its twin (see
/// [`Sector::twin`]) of a variant where a side with stones in hand may
/// slide, from the sectors in `solved`; `progress` is told of each step.
/// `solved` is let go of as soon as the first step is done with it, to
/// make room for the rest.
///
/// # Errors
///
/// [`MissingSuccessor`] naming a sector a move leads to that `solved`
/// does not hold.
pub fn build_unit(
    sector: Sector,
    solved: impl SolvedSectors,
    progress: &(dyn Fn(BuildStep) + Sync),
) -> Result<Vec<BuiltSector>, MissingSuccessor> {
    debug_assert!(sector.is_placing() && sector.variant.may_slide_while_placing());
    let work: Vec<Working> = sector.with_twin().into_iter().map(Working::new).collect();
    for (w, sector) in work.iter().zip(sector.with_twin()) {
        let decided = first_look(w, sector, &solved)?;
        progress(BuildStep::Looked { sector, decided });
    }
    drop(solved);
    Ok(solve_within(sector.variant, work, progress))
}

/// A sector a move out leads to, and its values.
#[derive(Clone, Copy)]
struct Lead<'a> {
    sector: Sector,
    values: &'a dyn SectorValues,
}

impl Lead<'_> {
    /// The outcome of the position at `index`, for the side to move there.
    #[inline]
    fn outcome(self, index: u64) -> Result<DbOutcome, MissingSuccessor> {
        self.values
            .outcome(index)
            .ok_or(MissingSuccessor(self.sector))
    }

    /// The value, for the side that moved, of a move that removed a stone
    /// and led to `index`: the plies to the next removal begin again.
    #[inline]
    fn through_removal(self, index: u64) -> Result<DbValue, MissingSuccessor> {
        Ok(match self.outcome(index)? {
            DbOutcome::Win => DbValue::loss(1),
            DbOutcome::Draw => DbValue::draw(),
            DbOutcome::Loss => DbValue::win(1),
        })
    }

    /// The best value, for the side that moved, of the moves that removed
    /// nothing and led to the positions `reached` (index and outcome
    /// there): one ply more than the best of them. Only the distances of
    /// the best outcome are read, since most moves out lead to draws.
    fn best_placement(
        self,
        reached: &[(u64, DbOutcome)],
    ) -> Result<Option<DbValue>, MissingSuccessor> {
        let Some(worst) = reached.iter().map(|&(_, outcome)| outcome).min() else {
            return Ok(None);
        };
        if worst == DbOutcome::Draw {
            return Ok(Some(DbValue::draw()));
        }
        let mut distances = reached
            .iter()
            .filter(|&&(_, outcome)| outcome == worst)
            .map(|&(index, outcome)| {
                self.values
                    .distance(index, outcome)
                    .ok_or(MissingSuccessor(self.sector))
            });
        Ok(Some(match worst {
            // A loss there is a win here, the sooner the better.
            DbOutcome::Loss => {
                DbValue::win(distances.try_fold(u16::MAX, |best, d| d.map(|d| best.min(d)))? + 1)
            }
            // Every move leads to a win there: the longest is best.
            _ => DbValue::loss(distances.try_fold(0, |best, d| d.map(|d| best.max(d)))? + 1),
        }))
    }
}

/// Where the moves out of a sector lead: placing without a removal, with
/// one, and sliding with one (`None` where there is no such move, or
/// where a removal leaves the other side short of stones: it wins).
struct Leads<'a> {
    placed: Option<Lead<'a>>,
    placed_removing: Option<Lead<'a>>,
    slid_removing: Option<Lead<'a>>,
}

/// The sectors the moves out of `sector` lead to: placing without a
/// removal, with one, and sliding with one (`None` where there is no such
/// move, or where a removal leaves the other side short of stones: it
/// wins).
fn lead_sectors(sector: Sector) -> [Option<Sector>; 3] {
    let (m, o) = (sector.board.mover, sector.board.other);
    let (mh, oh) = (sector.mover_hand, sector.other_hand);
    // The other side moves next. No board of a variant that slides while
    // placing can fill.
    let next = |stones: [usize; 4]| Sector::of_stones(sector.variant, stones);
    // After a removal the other side has one stone fewer on the board,
    // and must keep three in all.
    let removes = o > 0 && o - 1 + oh >= MIN_STONES;
    [
        sector.placed_into(),
        (mh > 0 && removes).then(|| next([o - 1, m + 1, oh, mh - 1])),
        (m > 0 && removes).then(|| next([o - 1, m, oh, mh])),
    ]
}

/// The sectors that the moves out of `sector` and of its twin lead to:
/// what their build reads.
pub fn unit_needs(sector: Sector) -> Vec<Sector> {
    let mut needs: Vec<Sector> = sector
        .with_twin()
        .into_iter()
        .flat_map(lead_sectors)
        .flatten()
        .collect();
    needs.sort_by_key(|s| {
        (
            s.to_place(),
            s.board.mover + s.board.other,
            s.board.mover,
            s.mover_hand,
        )
    });
    needs.dedup();
    needs
}

impl<'a> Leads<'a> {
    fn of(sector: Sector, solved: &'a dyn SolvedSectors) -> Result<Leads<'a>, MissingSuccessor> {
        let lead = |next: Sector, values: Option<&'a dyn SectorValues>| {
            let values = values.ok_or(MissingSuccessor(next))?;
            Ok(Lead {
                sector: next,
                values,
            })
        };
        // A placement that removes nothing is worth one ply more than the
        // position it leads to: only there are distances read.
        let [placed, placed_removing, slid_removing] = lead_sectors(sector);
        Ok(Leads {
            placed: placed.map(|s| lead(s, solved.values(s))).transpose()?,
            placed_removing: placed_removing
                .map(|s| lead(s, solved.outcomes(s)))
                .transpose()?,
            slid_removing: slid_removing
                .map(|s| lead(s, solved.outcomes(s)))
                .transpose()?,
        })
    }
}

/// A move out that removes: its sector, and for each stone a mill may
/// take, what the indices of the positions it leads to share.
struct Removing<'a> {
    lead: Lead<'a>,
    left: ArrayVec<WithMover, 10>,
}

/// The positions of a sector with one set of the other side's stones,
/// and what the indices of the positions their moves out lead to share:
/// those stones are the mover's there.
struct Group<'a> {
    tables: &'static Tables,
    other: Bitboard,
    mover_hand: usize,
    flies: bool,
    /// A removal leaves the other side short of stones: a mill wins.
    mill_wins: bool,
    placed: Option<(Lead<'a>, WithMover)>,
    placed_removing: Option<Removing<'a>>,
    slid_removing: Option<Removing<'a>>,
}

/// What one look at a position finds.
enum Look {
    /// Decided: no move within the pair, or a move out that decides at
    /// distance 0 or 1.
    Decided(DbValue),
    /// `counted` moves within the pair, and the best move out.
    Open { counted: u16, out: Option<DbValue> },
}

impl<'a> Group<'a> {
    fn new(
        tables: &'static Tables,
        sector: Sector,
        leads: &Leads<'a>,
        flies: bool,
        other: Bitboard,
    ) -> Group<'a> {
        let removing = |lead: Option<Lead<'a>>| {
            lead.map(|lead| Removing {
                lead,
                left: tables
                    .removable(other)
                    .into_iter()
                    .map(|taken| lead.sector.board.with_mover(other.without(taken)))
                    .collect(),
            })
        };
        let o = sector.board.other;
        Group {
            tables,
            other,
            mover_hand: sector.mover_hand,
            flies,
            mill_wins: o > 0 && o - 1 + sector.other_hand < MIN_STONES,
            placed: leads
                .placed
                .map(|lead| (lead, lead.sector.board.with_mover(other))),
            placed_removing: removing(leads.placed_removing),
            slid_removing: removing(leads.slid_removing),
        }
    }

    /// Looks at the position with `mover` stones against the group's.
    fn look(&self, mover: Bitboard) -> Result<Look, MissingSuccessor> {
        let tables = self.tables;
        let empty = !(mover | self.other);
        let mut counted = 0u16;
        let mut out: Option<DbValue> = None;
        let mut take = |value: DbValue| out = Some(out.map_or(value, |best| best.max(value)));
        let mut any_move = self.mover_hand > 0;
        // Slides (or flights).
        for from in mover {
            let rest = mover.without(from);
            let targets = if self.flies {
                empty
            } else {
                tables.neighbors(from) & empty
            };
            any_move |= !targets.is_empty();
            if self.other.is_empty() {
                // A mill closed removes nothing: the move stays in the pair.
                counted += targets.len() as u16;
                continue;
            }
            let closing = targets & tables.closing_points(rest, empty);
            counted += (targets - closing).len() as u16;
            if closing.is_empty() {
                continue;
            }
            if self.mill_wins {
                return Ok(Look::Decided(DbValue::win(1)));
            }
            let removing = self.slid_removing.as_ref().expect("a removal's sector");
            for to in closing {
                let after = rest.with(to);
                for left in &removing.left {
                    take(removing.lead.through_removal(left.index(after))?);
                }
            }
        }
        // Placements.
        if let Some((lead, placed)) = self.placed {
            let mut reached = ArrayVec::<(u64, DbOutcome), 24>::new();
            for to in empty {
                let after = mover.with(to);
                if self.other.is_empty() || !tables.closes_mill(mover, to) {
                    let index = placed.index(after);
                    reached.push((index, lead.outcome(index)?));
                    continue;
                }
                if self.mill_wins {
                    return Ok(Look::Decided(DbValue::win(1)));
                }
                let removing = self.placed_removing.as_ref().expect("a removal's sector");
                for left in &removing.left {
                    take(removing.lead.through_removal(left.index(after))?);
                }
            }
            if let Some(value) = lead.best_placement(&reached)? {
                take(value);
            }
        }
        Ok(match (any_move, counted, out) {
            (false, _, _) => Look::Decided(DbValue::loss(0)),
            (true, 0, Some(value)) if value.outcome == DbOutcome::Draw || value.distance <= 1 => {
                Look::Decided(value)
            }
            (true, _, Some(value)) if value == DbValue::win(1) => Look::Decided(value),
            (true, counted, out) => Look::Open { counted, out },
        })
    }
}

/// Step 1 for the sector `sector` of the pair, whose entries are `w`:
/// looks at every position once, taking the positions grouped by the
/// other side's stones (the mover's in every sector a move out leads to,
/// so that a group's successors lie close together). Returns the number
/// of positions decided.
fn first_look(
    w: &Working,
    sector: Sector,
    solved: &dyn SolvedSectors,
) -> Result<u64, MissingSuccessor> {
    let tables = sector.variant.tables();
    let leads = Leads::of(sector, solved)?;
    let exits = w.exits.as_ref().expect("stones in hand");
    let decided = classes_of(sector.board.other)
        .par_iter()
        .map(|&other| {
            let group = Group::new(tables, sector, &leads, w.mover_flies(), other);
            let mut decided = 0;
            for mover in subsets(sector.board.mover, !other) {
                // Every position of a group is this group's alone, and so
                // are its symmetric images (with the same look): no other
                // thread writes this entry.
                let slot = sector.board.canonical(mover, other).index as usize;
                let entry = w.entry(slot);
                match group.look(mover)? {
                    Look::Decided(value) => {
                        entry.store(value_entry(value.encode()), Ordering::Relaxed);
                        decided += 1;
                    }
                    Look::Open { counted, out } => {
                        let way_out = out.is_some_and(|out| out.outcome != DbOutcome::Loss);
                        let flag = if way_out { WAY_OUT } else { 0 };
                        entry.store(u32::from((counted * SIXTEENTHS) | flag), Ordering::Relaxed);
                        if let Some(out) = out.filter(|out| out.outcome != DbOutcome::Draw) {
                            if out.distance >= 2 {
                                exits.keep(slot, out);
                            }
                        }
                    }
                }
            }
            Ok(decided)
        })
        .try_reduce(|| 0, |a, b| Ok(a + b))?;
    exits.step_one_done();
    Ok(decided)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::board::{Position, Variant};
    use crate::solution::index::SectorIndex;
    use crate::solution::retrograde::moving::{SmallerSectors, build_pair};

    /// Sectors solved in memory.
    type Solved = HashMap<Sector, BuiltSector>;

    /// The moving phase's sectors of `Solved`, as a pair's build asks them.
    struct Moving<'a>(&'a Solved);

    impl SmallerSectors for Moving<'_> {
        fn outcomes(
            &self,
            variant: crate::board::Variant,
            positions: &[(Bitboard, Bitboard)],
            outcomes: &mut Vec<Option<DbOutcome>>,
        ) {
            outcomes.extend(positions.iter().map(|&(mover, other)| {
                let board = SectorIndex::new(mover.len() as usize, other.len() as usize);
                let values = self.0.get(&Sector::moving(variant, board))?;
                let value = values.value(board.canonical(mover, other).index)?;
                Some(value.outcome)
            }));
        }
    }

    /// Every sector of `variant` with at most `per_side` stones a side,
    /// built in order.
    fn solve(variant: Variant, per_side: usize) -> Solved {
        let mut solved = Solved::new();
        for sector in Sector::interleaved_within(variant, per_side) {
            let built = if sector.is_placing() {
                build_unit(sector, &solved, &|_| {}).expect("built in order")
            } else {
                let board = sector.board;
                build_pair(variant, board.mover, board.other, Moving(&solved), &|_| {})
            };
            for values in built {
                solved.insert(values.sector, values);
            }
        }
        solved
    }

    /// The stored value of `pos`, of a sector in `solved`.
    fn stored(solved: &Solved, variant: Variant, pos: &Position) -> Option<DbValue> {
        let (us, them) = (pos.side_to_move(), pos.side_to_move().opponent());
        let (mover, other) = (pos.stones(us), pos.stones(them));
        let hands = [us, them].map(|side| usize::from(pos.in_hand(side)));
        let sector = Sector::new(
            variant,
            mover.len() as usize,
            other.len() as usize,
            hands[0],
            hands[1],
        )?;
        let values = solved.get(&sector)?;
        values.value(sector.board.canonical(mover, other).index)
    }

    /// The value `pos` must have by the rules, from the stored values of
    /// the positions its legal moves lead to (a removal counts as one ply
    /// to the next removal, a move that leaves the other side short wins).
    fn by_the_rules(solved: &Solved, variant: Variant, pos: &Position) -> DbValue {
        let moves = pos.legal_moves();
        let mut best: Option<DbValue> = None;
        for mv in moves {
            let mut child = *pos;
            child.play_unchecked(mv);
            let value = if child.side_to_move_is_short() {
                DbValue::loss(0)
            } else {
                stored(solved, variant, &child).expect("every child is stored")
            };
            let plies = if mv.removal.is_some() {
                1
            } else {
                value.distance + 1
            };
            let mine = match value.outcome {
                DbOutcome::Win => DbValue::loss(plies),
                DbOutcome::Draw => DbValue::draw(),
                DbOutcome::Loss => DbValue::win(plies),
            };
            best = Some(best.map_or(mine, |best| best.max(mine)));
        }
        best.unwrap_or(DbValue::loss(0))
    }

    /// Checks every `step`th index of every sector of `solved` against its
    /// legal moves; returns the number of positions checked.
    fn check_by_the_rules(solved: &Solved, variant: Variant, step: usize) -> usize {
        let mut checked = 0;
        for (sector, values) in solved {
            for index in (0..sector.len()).step_by(step) {
                let (mover, other) = sector.board.decode(index);
                if sector.board.canonical(mover, other).index != index {
                    continue;
                }
                let pos = sector.position(mover, other);
                let value = values
                    .value(index)
                    .expect("a canonical index is a position");
                let expected = by_the_rules(solved, variant, &pos);
                assert_eq!(value, expected, "{sector}: {}", pos.fen());
                checked += 1;
            }
        }
        checked
    }

    #[test]
    fn the_sector_a_placement_comes_from_is_the_one_whose_placements_lead_there() {
        let sectors: Vec<Sector> = Sector::interleaved_within(Variant::Lasker, 10)
            .into_iter()
            .flat_map(Sector::with_twin)
            .collect();
        let mut read = 0;
        for &sector in &sectors {
            if let Some(from) = sector.placed_from() {
                assert_eq!(from.placed_into(), Some(sector), "{sector}");
                read += 1;
            }
            let Some(into) = sector.placed_into() else {
                continue;
            };
            assert_eq!(lead_sectors(sector)[0], Some(into));
            assert_eq!(into.placed_from(), Some(sector), "{sector}");
        }
        // Only a sector with no stone of the other side on the board is
        // reached by no placement.
        let unread = sectors.iter().filter(|s| s.placed_from().is_none());
        assert!(
            unread.clone().all(|s| s.board.other == 0),
            "{:?}",
            unread.collect::<Vec<_>>()
        );
        assert!(read > 3000);
    }

    #[test]
    fn lasker_values_agree_with_the_rules_up_to_three_stones_a_side() {
        let solved = solve(Variant::Lasker, 3);
        // Both sides' three stones on the board or in hand, each way.
        assert_eq!(solved.len(), 16);
        assert!(check_by_the_rules(&solved, Variant::Lasker, 1) > 100_000);
    }

    #[test]
    fn lasker_values_agree_with_the_rules_up_to_four_stones_a_side() {
        let solved = solve(Variant::Lasker, 4);
        assert!(check_by_the_rules(&solved, Variant::Lasker, 17) > 100_000);
    }
}
