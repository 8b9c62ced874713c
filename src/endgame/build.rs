//! Retrograde analysis: the exact value of every position of a pair of
//! sectors, given the values of the smaller sectors a removal leads to.
//!
//! 1. Every canonical position is looked at once: a blocked position is
//!    lost (distance 0); a removal into a position lost for the opponent
//!    (or leaving it fewer than three stones) wins at distance 1; a removal
//!    into a drawn position is a way out; the other moves stay inside the
//!    pair and are counted.
//! 2. From the positions decided at distance d, the moves are taken back:
//!    a predecessor of a lost position wins at d + 1; a predecessor of a
//!    won position loses one of its counted moves and is lost at d + 1
//!    (the longest resistance) when none is left and it has no way out.
//! 3. What is still open is a draw.
//!
//! Positions are symmetry classes, so a class's count of moves is kept in
//! sixteenths: taking back a move from a class with stabiliser `sc` into
//! one with stabiliser `sp` stands for `sp / sc` of its moves.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use super::index::SectorIndex;
use super::memory::AtomicWords;
use super::{DbOutcome, DbValue};
use crate::board::{Bitboard, Color, Position, Rules};

/// The position of a sector with `mover` to move (as White) against
/// `other`, nothing in hand, under the rules the databases are built for.
pub fn sector_position(mover: Bitboard, other: Bitboard) -> Position {
    Position::from_parts([mover, other], [0, 0], Color::White, Rules::default(), 0, 1)
}

/// Looks up the values of positions of already built smaller sectors.
pub trait SmallerSectors: Sync {
    /// Appends to `values` the value of each position (`mover`, `other`)
    /// of `positions` (`None` where its sector is not known).
    fn values(&self, positions: &[(Bitboard, Bitboard)], values: &mut Vec<Option<DbValue>>);
}

/// How far the build of a pair has come, told as it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildStep {
    /// Step 1 looked at every position of one sector of the pair and
    /// decided `decided` of them.
    Looked {
        /// The sector.
        sector: SectorIndex,
        /// Positions decided by a block or a removal.
        decided: u64,
    },
    /// Step 2 took moves back from the positions decided at `distance`
    /// and decided `decided` more (at `distance + 1`).
    TookBack {
        /// Plies to the next removal of the positions taken back from.
        distance: u16,
        /// Positions newly decided.
        decided: u64,
    },
}

impl BuildStep {
    /// Positions decided in this step.
    pub fn decided(self) -> u64 {
        match self {
            BuildStep::Looked { decided, .. } | BuildStep::TookBack { decided, .. } => decided,
        }
    }
}

/// Counted moves are kept in sixteenths (see the module notes).
const SIXTEENTHS: u16 = 16;
/// Marks a position with a removal into a drawn position.
const WAY_OUT: u16 = 1 << 15;

/// A working entry holds a position's encoded value (0 while open) in its
/// high half and its count of moves in its low half, in one word so that
/// taking a move back touches memory once.
fn entry_value(entry: u32) -> u16 {
    (entry >> 16) as u16
}

fn entry_count(entry: u32) -> u16 {
    entry as u16
}

fn value_entry(encoded: u16) -> u32 {
    u32::from(encoded) << 16
}

/// The values of one sector, one `u16` per index (see [`DbValue::encode`]).
pub struct BuiltSector {
    /// The sector.
    pub sector: SectorIndex,
    /// Encoded values; 0 for indices that are not canonical.
    pub values: Vec<u16>,
}

/// Frontier positions taken back together (see `take_moves_back`).
const CHUNK: usize = 64;

/// A move taken back into the entry `slot` of the pair's sector `sector`;
/// `step` is what it takes off the entry's count of moves (sixteenths), or
/// 0 when the move led into a lost position (so the entry is won).
struct Unmove {
    sector: usize,
    slot: usize,
    step: u16,
}

/// A position decided: its index, which sector of the pair it is in and
/// whether it is lost (the top bits), in one word since generation holds
/// hundreds of millions. The outcome is carried along because the entry
/// itself lies at a random place in memory: reading it there would stall
/// every position taken back.
#[derive(Clone, Copy)]
struct Decided(u64);

impl Decided {
    const SECOND: u64 = 1 << 63;
    const LOST: u64 = 1 << 62;

    fn new(sector: usize, index: u64, outcome: DbOutcome) -> Decided {
        let sector = if sector == 0 { 0 } else { Self::SECOND };
        let lost = if outcome == DbOutcome::Loss {
            Self::LOST
        } else {
            0
        };
        Decided(index | sector | lost)
    }

    /// The sector, the index, and whether the position is lost.
    fn parts(self) -> (usize, u64, bool) {
        (
            usize::from(self.0 & Self::SECOND != 0),
            self.0 & !(Self::SECOND | Self::LOST),
            self.0 & Self::LOST != 0,
        )
    }
}

struct Working {
    sector: SectorIndex,
    entries: AtomicWords,
}

impl Working {
    fn entry(&self, slot: usize) -> &AtomicU32 {
        &self.entries.as_slice()[slot]
    }

    fn value(&self, slot: usize) -> Option<DbValue> {
        DbValue::decode(entry_value(self.entry(slot).load(Ordering::Relaxed)))
    }
}

/// Builds the sectors (a, b) and (b, a) (one sector when a = b);
/// `progress` is told of each step.
///
/// # Panics
///
/// If a sector has fewer than three stones a side (such positions are not
/// stored: the side short of stones has lost).
pub fn build_pair(
    a: usize,
    b: usize,
    smaller: &dyn SmallerSectors,
    progress: &(dyn Fn(BuildStep) + Sync),
) -> Vec<BuiltSector> {
    assert!(
        a >= 3 && b >= 3,
        "sectors hold at least three stones a side"
    );
    let sectors = if a == b {
        vec![SectorIndex::new(a, b)]
    } else {
        vec![SectorIndex::new(a, b), SectorIndex::new(b, a)]
    };
    let work: Vec<Working> = sectors
        .iter()
        .map(|&sector| Working {
            sector,
            entries: AtomicWords::zeroed(sector.len() as usize),
        })
        .collect();
    let decided = first_look(&work, smaller, progress);
    take_moves_back(&work, decided, progress);
    into_sectors(work)
}

/// Positions looked at together in step 1: their removals' values are
/// asked for at once, so that the memory fetches them together instead of
/// one miss after another (most of step 1 is waiting for those bytes).
const LOOK_BATCH: usize = 256;

/// Step 1. Looks at every canonical position once, deciding those a
/// removal or a block decides (see the module notes), and counting the
/// moves of the others; returns the positions decided, by sector.
fn first_look(
    work: &[Working],
    smaller: &dyn SmallerSectors,
    progress: &(dyn Fn(BuildStep) + Sync),
) -> Vec<Decided> {
    let mut frontier: Vec<Decided> = Vec::new();
    for (s, w) in work.iter().enumerate() {
        let decided: Vec<Decided> = (0..w.sector.class_count())
            .into_par_iter()
            .flat_map_iter(|class| {
                let mut positions = w.sector.canonical_positions(class);
                let mut batch = Vec::with_capacity(LOOK_BATCH);
                let mut decided = Vec::new();
                loop {
                    batch.clear();
                    batch.extend(positions.by_ref().take(LOOK_BATCH));
                    if batch.is_empty() {
                        return decided;
                    }
                    look_at_batch(&batch, smaller, |index, look| {
                        let slot = index as usize;
                        match look {
                            Look::Decided(value) => {
                                w.entry(slot)
                                    .store(value_entry(value.encode()), Ordering::Relaxed);
                                decided.push(Decided::new(s, index, value.outcome));
                            }
                            Look::Drawn => {
                                w.entry(slot).store(
                                    value_entry(DbValue::draw().encode()),
                                    Ordering::Relaxed,
                                );
                            }
                            Look::Open { counted, way_out } => {
                                let flag = if way_out { WAY_OUT } else { 0 };
                                w.entry(slot).store(
                                    u32::from((counted * SIXTEENTHS) | flag),
                                    Ordering::Relaxed,
                                );
                            }
                        }
                    });
                }
            })
            .collect();
        progress(BuildStep::Looked {
            sector: w.sector,
            decided: decided.len() as u64,
        });
        frontier.extend(decided);
    }
    frontier
}

/// What one look at a position finds (step 1).
enum Look {
    /// Decided by a block or a removal.
    Decided(DbValue),
    /// Drawn: every move removes, and one removal leads to a draw.
    Drawn,
    /// Open: `counted` moves stay inside the pair; `way_out` if a removal
    /// leads to a draw.
    Open { counted: u16, way_out: bool },
}

/// The moves of one position, walked on the stones alone (not played on
/// a [`Position`]), since every position of the pair is looked at once.
struct Walk {
    /// Moves that stay inside the pair.
    counted: u16,
    /// Whether the mover has any move at all.
    any_move: bool,
    /// Whether a removal leaves the opponent fewer than three stones.
    wins_now: bool,
}

/// Walks the moves of `mover` against `other`, pushing onto `removals`
/// the positions (opponent to move) that its removals lead to.
#[inline]
fn walk_moves(mover: Bitboard, other: Bitboard, removals: &mut Vec<(Bitboard, Bitboard)>) -> Walk {
    let tables = Rules::default().variant.tables();
    let empty = !(mover | other);
    let flies = mover.len() == 3;
    let removable = tables.removable(other);
    let mut walk = Walk {
        counted: 0,
        any_move: false,
        wins_now: false,
    };
    for from in mover {
        let rest = mover.without(from);
        let targets = if flies {
            empty
        } else {
            tables.neighbors(from) & empty
        };
        let closing = targets & tables.closing_points(rest, empty);
        walk.counted += (targets - closing).len() as u16;
        walk.any_move |= !targets.is_empty();
        if !closing.is_empty() && other.len() == 3 {
            walk.wins_now = true;
            return walk;
        }
        for to in closing {
            let after = rest.with(to);
            removals.extend(
                removable
                    .into_iter()
                    .map(|taken| (other.without(taken), after)),
            );
        }
    }
    walk
}

/// Step 1 for a batch of positions (index, mover, other): tells `record`
/// what each look finds.
fn look_at_batch(
    batch: &[(u64, Bitboard, Bitboard)],
    smaller: &dyn SmallerSectors,
    mut record: impl FnMut(u64, Look),
) {
    let mut removals = Vec::with_capacity(batch.len() * 16);
    let walks: Vec<(Walk, usize)> = batch
        .iter()
        .map(|&(_, mover, other)| {
            let walk = walk_moves(mover, other, &mut removals);
            (walk, removals.len())
        })
        .collect();
    let mut values = Vec::with_capacity(removals.len());
    smaller.values(&removals, &mut values);
    let mut start = 0;
    for (&(index, _, _), (walk, end)) in batch.iter().zip(walks) {
        let removed_into = &values[start..end];
        start = end;
        if walk.wins_now
            || removed_into
                .iter()
                .flatten()
                .any(|v| v.outcome == DbOutcome::Loss)
        {
            record(index, Look::Decided(DbValue::win(1)));
            continue;
        }
        let way_out = removed_into
            .iter()
            .flatten()
            .any(|v| v.outcome == DbOutcome::Draw);
        let look = match (walk.any_move, walk.counted, way_out) {
            (false, _, _) => Look::Decided(DbValue::loss(0)),
            (true, 0, true) => Look::Drawn,
            (true, 0, false) => Look::Decided(DbValue::loss(1)),
            (true, counted, way_out) => Look::Open { counted, way_out },
        };
        record(index, look);
    }
}

/// Step 2. Takes moves back from the positions decided at each distance,
/// starting from those of step 1 (`frontier`), until nothing new is
/// decided.
fn take_moves_back(
    work: &[Working],
    frontier: Vec<Decided>,
    progress: &(dyn Fn(BuildStep) + Sync),
) {
    // The sector a non-removal move leads to: the other one of the pair.
    let partner = |s: usize| if work.len() == 1 { 0 } else { 1 - s };
    // Distances 0 and 1 were both found in step 1; group them.
    let mut frontier_by_distance: Vec<Vec<Decided>> = vec![Vec::new(); 2];
    for decided in frontier {
        let (s, index, _) = decided.parts();
        if let Some(value) = work[s].value(index as usize) {
            frontier_by_distance[usize::from(value.distance.min(1))].push(decided);
        }
    }
    let mut distance = 0u16;
    let mut current = std::mem::take(&mut frontier_by_distance[0]);
    let mut pending_next = std::mem::take(&mut frontier_by_distance[1]);
    while !current.is_empty() || !pending_next.is_empty() {
        let next: Vec<Decided> = current
            .par_chunks(CHUNK)
            .flat_map_iter(|chunk| {
                // The last moves of the chunk's positions, taken back.
                let mut unmoves: Vec<Unmove> = Vec::with_capacity(chunk.len() * 32);
                for decided in chunk {
                    let (s, index, lost_here) = decided.parts();
                    let w = &work[s];
                    let (mover, other) = w.sector.decode(index);
                    // Only a won position's predecessors count its moves.
                    let own_stabilizer = if lost_here {
                        1
                    } else {
                        w.sector.canonical(mover, other).stabilizer as u16
                    };
                    let p = partner(s);
                    let target = &work[p];
                    // The last move was made by `other`; take it back.
                    for_each_predecessor(mover, other, |before| {
                        let canonical = target.sector.canonical(before, mover);
                        unmoves.push(Unmove {
                            sector: p,
                            slot: canonical.index as usize,
                            step: if lost_here {
                                0
                            } else {
                                SIXTEENTHS * canonical.stabilizer as u16 / own_stabilizer
                            },
                        });
                    });
                }
                // Touch every entry first: the loads are independent, so
                // the memory fetches them all at once instead of one miss
                // after another.
                let touched = unmoves.iter().fold(0u32, |acc, u| {
                    acc | work[u.sector].entry(u.slot).load(Ordering::Relaxed)
                });
                std::hint::black_box(touched);
                let mut found = Vec::new();
                for u in &unmoves {
                    let entry = work[u.sector].entry(u.slot);
                    let mut current = entry.load(Ordering::Relaxed);
                    if entry_value(current) != 0 {
                        continue;
                    }
                    let decided = if u.step == 0 {
                        // Into a position lost for the opponent: won. The
                        // count may change meanwhile; it is kept.
                        let won = value_entry(DbValue::win(distance + 1).encode());
                        loop {
                            match entry.compare_exchange_weak(
                                current,
                                won | u32::from(entry_count(current)),
                                Ordering::Relaxed,
                                Ordering::Relaxed,
                            ) {
                                Ok(_) => break true,
                                Err(now) if entry_value(now) != 0 => break false,
                                Err(now) => current = now,
                            }
                        }
                    } else {
                        // Each move is taken back once, in exact
                        // sixteenths, so a count never goes below zero
                        // (into the value's half).
                        let before =
                            entry_count(entry.fetch_sub(u32::from(u.step), Ordering::Relaxed));
                        debug_assert!(before & !WAY_OUT >= u.step);
                        if before & !WAY_OUT != u.step || before & WAY_OUT != 0 {
                            continue;
                        }
                        // Every move leads to a win for the opponent.
                        let lost = value_entry(DbValue::loss(distance + 1).encode());
                        entry
                            .compare_exchange(0, lost, Ordering::Relaxed, Ordering::Relaxed)
                            .is_ok()
                    };
                    if decided {
                        let outcome = if u.step == 0 {
                            DbOutcome::Win
                        } else {
                            DbOutcome::Loss
                        };
                        found.push(Decided::new(u.sector, u.slot as u64, outcome));
                    }
                }
                found
            })
            .collect();
        progress(BuildStep::TookBack {
            distance,
            decided: next.len() as u64,
        });
        distance += 1;
        current = next;
        if distance == 1 {
            current.append(&mut pending_next);
        }
    }
}

/// Step 3. What is still open is a draw: the finished values.
fn into_sectors(work: Vec<Working>) -> Vec<BuiltSector> {
    work.into_iter()
        .map(|w| {
            let values = w
                .entries
                .as_slice()
                .par_iter()
                .map(|entry| {
                    // Step 1 gave every canonical position a value or a
                    // count of its moves (never zero while it is open).
                    let entry = entry.load(Ordering::Relaxed);
                    match (entry_value(entry), entry_count(entry)) {
                        (0, 0) => 0,
                        (0, _) => DbValue::draw().encode(),
                        (value, _) => value,
                    }
                })
                .collect();
            BuiltSector {
                sector: w.sector,
                values,
            }
        })
        .collect()
}

/// Calls `found` with the stones `other` had before its last move, for
/// each move that could have led here without closing a mill (and so
/// without a removal).
#[inline]
fn for_each_predecessor(mover: Bitboard, other: Bitboard, mut found: impl FnMut(Bitboard)) {
    let tables = Rules::default().variant.tables();
    let empty = !(mover | other);
    let flies = other.len() == 3;
    for to in other {
        if tables.closes_mill(other.without(to), to) {
            continue;
        }
        let origins = if flies {
            empty
        } else {
            tables.neighbors(to) & empty
        };
        for from in origins {
            found(other.without(to).with(from));
        }
    }
}
