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

use std::ops::Range;
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};

use rayon::prelude::*;

use crate::board::{Bitboard, Tables, Variant};
use crate::solution::format::moving::BuiltSector;
use crate::solution::index::{MIN_STONES, SectorIndex};
use crate::solution::memory::HugeAtomics;
use crate::solution::probe::Database;
use crate::solution::sector::Sector;
use crate::solution::value::{DbOutcome, DbValue};

/// Looks up the outcomes of positions of already built smaller sectors: a
/// removal is the next removal, so its distance is 1 whatever theirs.
pub trait SmallerSectors: Sync {
    /// Appends to `outcomes` the outcome of each position (`mover`,
    /// `other`) of `variant` in `positions` (`None` where its sector is not
    /// known).
    fn outcomes(
        &self,
        variant: Variant,
        positions: &[(Bitboard, Bitboard)],
        outcomes: &mut Vec<Option<DbOutcome>>,
    );
}

impl SmallerSectors for Database {
    fn outcomes(
        &self,
        variant: Variant,
        positions: &[(Bitboard, Bitboard)],
        outcomes: &mut Vec<Option<DbOutcome>>,
    ) {
        self.sector_outcomes(variant, positions, outcomes);
    }
}

impl<T: SmallerSectors + ?Sized> SmallerSectors for &T {
    fn outcomes(
        &self,
        variant: Variant,
        positions: &[(Bitboard, Bitboard)],
        outcomes: &mut Vec<Option<DbOutcome>>,
    ) {
        (**self).outcomes(variant, positions, outcomes);
    }
}

/// How far the build of a pair has come, told as it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildStep {
    /// Step 1 looked at every position of one sector of the pair and
    /// decided `decided` of them.
    Looked {
        /// The sector.
        sector: Sector,
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
pub(super) const SIXTEENTHS: u16 = 16;
/// Marks a position with a removal into a drawn position.
pub(super) const WAY_OUT: u16 = 1 << 15;

/// A working entry holds a position's encoded value (0 while open) in its
/// high half and its count of moves in its low half, in one word so that
/// taking a move back touches memory once.
fn entry_value(entry: u32) -> u16 {
    (entry >> 16) as u16
}

fn entry_count(entry: u32) -> u16 {
    entry as u16
}

pub(super) fn value_entry(encoded: u16) -> u32 {
    u32::from(encoded) << 16
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
struct Decided(u32);

impl Decided {
    const SECOND: u32 = 1 << 31;
    const LOST: u32 = 1 << 30;
    /// Indices below this fit beside the two flags.
    const INDICES: u64 = 1 << 30;

    fn new(sector: usize, index: u64, outcome: DbOutcome) -> Decided {
        debug_assert!(index < Self::INDICES);
        let sector = if sector == 0 { 0 } else { Self::SECOND };
        let lost = if outcome == DbOutcome::Loss {
            Self::LOST
        } else {
            0
        };
        Decided(index as u32 | sector | lost)
    }

    /// The sector, the index, and whether the position is lost.
    fn parts(self) -> (usize, u64, bool) {
        (
            usize::from(self.0 & Self::SECOND != 0),
            u64::from(self.0 & !(Self::SECOND | Self::LOST)),
            self.0 & Self::LOST != 0,
        )
    }
}

/// A list found by one thread, its spare room given back: the lists of a
/// distance can hold hundreds of millions of positions.
fn trimmed(mut list: Vec<Decided>) -> Vec<Decided> {
    list.shrink_to_fit();
    list
}

/// A sector of the pair being built: its index space, its entries, and
/// where its stones in hand give it moves out of the pair, what the best
/// of those moves is worth (see [`Exits`]).
pub(super) struct Working {
    pub(super) sector: SectorIndex,
    /// Stones in hand: of the side to move, and of the other side.
    pub(super) hands: [usize; 2],
    pub(super) entries: HugeAtomics<AtomicU32>,
    /// `None` in the moving phase, whose only moves out are removals.
    pub(super) exits: Option<Exits>,
}

impl Working {
    /// The sector `sector` of `variant`, every entry open; with exits if
    /// stones are in hand.
    pub(super) fn new(sector: Sector) -> Working {
        let len = sector.len() as usize;
        Working {
            sector: sector.board,
            hands: [sector.mover_hand, sector.other_hand],
            entries: HugeAtomics::zeroed(len),
            exits: sector.is_placing().then(|| Exits::new(len)),
        }
    }

    /// Whether the side to move flies: three stones, none in hand.
    pub(super) fn mover_flies(&self) -> bool {
        self.sector.mover == MIN_STONES && self.hands[0] == 0
    }

    /// Whether the other side flies.
    fn other_flies(&self) -> bool {
        self.sector.other == MIN_STONES && self.hands[1] == 0
    }

    pub(super) fn entry(&self, slot: usize) -> &AtomicU32 {
        &self.entries.as_slice()[slot]
    }

    fn value(&self, slot: usize) -> Option<DbValue> {
        DbValue::decode(entry_value(self.entry(slot).load(Ordering::Relaxed)))
    }
}

/// For each position with stones in hand, the best of its moves out of
/// the pair (placements, and removals), where step 2 needs it: a win by
/// one (the position is won at its distance, unless a move within the
/// pair wins sooner), or the longest loss among them (once every move
/// within the pair is found lost, the position is lost no sooner). Step 1
/// decides the positions whose value a move out decides at distance 0 or
/// 1; nothing is kept for the others.
pub(super) struct Exits {
    /// A code a position: 0 nothing kept, `WIN_EXIT` plus the distance for
    /// a win, the distance for a loss, `FAR_EXIT` (with the flag) when it
    /// is in `far`.
    codes: HugeAtomics<AtomicU8>,
    /// The values too far for a code, by slot, sorted once step 1 is done.
    far: Mutex<Vec<(usize, DbValue)>>,
    /// The longest distance kept.
    farthest: AtomicU16,
}

/// The flag of a win in an exit's code.
const WIN_EXIT: u8 = 1 << 7;
/// The distance part of a code that sends to the far values.
const FAR_EXIT: u8 = WIN_EXIT - 1;

impl Exits {
    fn new(len: usize) -> Exits {
        Exits {
            codes: HugeAtomics::zeroed(len),
            far: Mutex::new(Vec::new()),
            farthest: AtomicU16::new(0),
        }
    }

    /// Keeps `value`, a win or a loss at distance 2 or more, for `slot`.
    pub(super) fn keep(&self, slot: usize, value: DbValue) {
        debug_assert!(value.outcome != DbOutcome::Draw && value.distance >= 2);
        let flag = if value.outcome == DbOutcome::Win {
            WIN_EXIT
        } else {
            0
        };
        let distance = match u8::try_from(value.distance) {
            Ok(near) if near < FAR_EXIT => near,
            _ => {
                let mut far = self.far.lock().unwrap_or_else(PoisonError::into_inner);
                far.push((slot, value));
                FAR_EXIT
            }
        };
        self.codes.as_slice()[slot].store(flag | distance, Ordering::Relaxed);
        self.farthest.fetch_max(value.distance, Ordering::Relaxed);
    }

    /// Sorts the far values, once step 1 has kept them all.
    pub(super) fn step_one_done(&self) {
        let mut far = self.far.lock().unwrap_or_else(PoisonError::into_inner);
        // A position whose other side's stones are symmetric is looked at
        // once for each image.
        far.sort_unstable_by_key(|&(slot, _)| slot);
        far.dedup_by_key(|&mut (slot, _)| slot);
    }

    /// The longest distance kept.
    fn farthest(&self) -> u16 {
        self.farthest.load(Ordering::Relaxed)
    }

    /// What is kept for `slot`, unless it is far.
    fn near(&self, slot: usize) -> Option<DbValue> {
        let code = self.codes.as_slice()[slot].load(Ordering::Relaxed);
        let distance = u16::from(code & !WIN_EXIT);
        match code {
            0 => None,
            _ if distance == u16::from(FAR_EXIT) => None,
            _ if code & WIN_EXIT != 0 => Some(DbValue::win(distance)),
            _ => Some(DbValue::loss(distance)),
        }
    }

    /// What is kept for `slot`.
    fn value(&self, slot: usize) -> Option<DbValue> {
        let code = self.codes.as_slice()[slot].load(Ordering::Relaxed);
        if code & !WIN_EXIT != FAR_EXIT {
            return self.near(slot);
        }
        let far = self.far.lock().unwrap_or_else(PoisonError::into_inner);
        let at = far.binary_search_by_key(&slot, |&(slot, _)| slot).ok()?;
        Some(far[at].1)
    }

    /// The far values at `distance`.
    fn far_at(&self, distance: u16) -> Vec<(usize, DbValue)> {
        let far = self.far.lock().unwrap_or_else(PoisonError::into_inner);
        far.iter()
            .copied()
            .filter(|(_, value)| value.distance == distance)
            .collect()
    }

    /// Whether the position at `slot`, whose moves within the pair are
    /// all lost by `distance`, is lost later by a move out.
    fn loses_later(&self, slot: usize, distance: u16) -> bool {
        self.value(slot)
            .is_some_and(|value| value.outcome == DbOutcome::Loss && value.distance > distance)
    }
}

/// Builds the sectors (a, b) and (b, a) (one sector when a = b) of
/// `variant`; `progress` is told of each step. `smaller` is let go of as
/// soon as the first step is done with it, to make room for the rest.
///
/// # Panics
///
/// If a sector has fewer than three stones a side (such positions are not
/// stored: the side short of stones has lost).
pub fn build_pair(
    variant: Variant,
    a: usize,
    b: usize,
    smaller: impl SmallerSectors,
    progress: &(dyn Fn(BuildStep) + Sync),
) -> Vec<BuiltSector> {
    assert!(
        a >= MIN_STONES && b >= MIN_STONES,
        "sectors hold at least three stones a side"
    );
    let work: Vec<Working> = Sector::moving(variant, SectorIndex::new(a, b))
        .with_twin()
        .into_iter()
        .map(Working::new)
        .collect();
    first_look(variant, &work, &smaller, progress);
    drop(smaller);
    solve_within(variant, work, progress)
}

/// Steps 2 and 3, once step 1 has looked at every position of `work`.
///
/// # Panics
///
/// If a sector has more indices than a decided position can name.
pub(super) fn solve_within(
    variant: Variant,
    mut work: Vec<Working>,
    progress: &(dyn Fn(BuildStep) + Sync),
) -> Vec<BuiltSector> {
    assert!(
        work.iter().all(|w| w.sector.len() <= Decided::INDICES),
        "a sector has more indices than a decided position can name"
    );
    take_moves_back(variant.tables(), &work, progress);
    // Step 3 needs no move out: their room goes to the finished values.
    for w in &mut work {
        w.exits = None;
    }
    into_sectors(variant, work)
}

/// Positions looked at together in step 1: their removals' values are
/// asked for at once, so that the memory fetches them together instead of
/// one miss after another (most of step 1 is waiting for those bytes).
const LOOK_BATCH: usize = 256;

/// Step 1. Looks at every canonical position once, deciding those a
/// removal or a block decides (see the module notes), and counting the
/// moves of the others.
fn first_look(
    variant: Variant,
    work: &[Working],
    smaller: &dyn SmallerSectors,
    progress: &(dyn Fn(BuildStep) + Sync),
) {
    for w in work {
        let decided: u64 = (0..w.sector.class_count())
            .into_par_iter()
            .map(|class| {
                let mut positions = w.sector.canonical_positions(class);
                let mut batch = Vec::with_capacity(LOOK_BATCH);
                let mut decided = 0;
                loop {
                    batch.clear();
                    batch.extend(positions.by_ref().take(LOOK_BATCH));
                    if batch.is_empty() {
                        return decided;
                    }
                    look_at_batch(variant, &batch, smaller, |index, look| {
                        let entry = w.entry(index as usize);
                        match look {
                            Look::Decided(value) => {
                                entry.store(value_entry(value.encode()), Ordering::Relaxed);
                                decided += 1;
                            }
                            Look::Drawn => {
                                entry.store(
                                    value_entry(DbValue::draw().encode()),
                                    Ordering::Relaxed,
                                );
                            }
                            Look::Open { counted, way_out } => {
                                let flag = if way_out { WAY_OUT } else { 0 };
                                entry.store(
                                    u32::from((counted * SIXTEENTHS) | flag),
                                    Ordering::Relaxed,
                                );
                            }
                        }
                    });
                }
            })
            .sum();
        progress(BuildStep::Looked {
            sector: Sector::moving(variant, w.sector),
            decided,
        });
    }
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
fn walk_moves(
    tables: &Tables,
    mover: Bitboard,
    other: Bitboard,
    removals: &mut Vec<(Bitboard, Bitboard)>,
) -> Walk {
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
        if !closing.is_empty() && other.len() as usize == MIN_STONES {
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
    variant: Variant,
    batch: &[(u64, Bitboard, Bitboard)],
    smaller: &dyn SmallerSectors,
    mut record: impl FnMut(u64, Look),
) {
    let tables = variant.tables();
    let mut removals = Vec::with_capacity(batch.len() * 16);
    let walks: Vec<(Walk, usize)> = batch
        .iter()
        .map(|&(_, mover, other)| {
            let walk = walk_moves(tables, mover, other, &mut removals);
            (walk, removals.len())
        })
        .collect();
    let mut outcomes = Vec::with_capacity(removals.len());
    smaller.outcomes(variant, &removals, &mut outcomes);
    let mut start = 0;
    for (&(index, _, _), (walk, end)) in batch.iter().zip(walks) {
        let removed_into = &outcomes[start..end];
        start = end;
        if walk.wins_now || removed_into.contains(&Some(DbOutcome::Loss)) {
            record(index, Look::Decided(DbValue::win(1)));
            continue;
        }
        let way_out = removed_into.contains(&Some(DbOutcome::Draw));
        let look = match (walk.any_move, walk.counted, way_out) {
            (false, _, _) => Look::Decided(DbValue::loss(0)),
            (true, 0, true) => Look::Drawn,
            (true, 0, false) => Look::Decided(DbValue::loss(1)),
            (true, counted, way_out) => Look::Open { counted, way_out },
        };
        record(index, look);
    }
}

/// Where a round of step 2 finds the positions decided at its distance.
enum Frontier {
    /// In a pass over every entry: step 1 decides most of the positions
    /// it decides at once, and listing them would cost more memory than
    /// the entries themselves.
    Scan,
    /// In the lists the round before found them in, as its threads made
    /// them (joining them into one would need the memory twice over).
    Listed(Vec<Vec<Decided>>),
}

/// Entries a thread scans at a time for the positions decided at a
/// distance.
const SCAN_BLOCK: usize = 1 << 14;

/// Step 2. Takes moves back from the positions decided at each distance,
/// starting from those of step 1 (at distances 0 and 1), until nothing
/// new is decided and no move out of the pair decides more (see
/// [`Exits`]).
fn take_moves_back(tables: &Tables, work: &[Working], progress: &(dyn Fn(BuildStep) + Sync)) {
    let farthest = work
        .iter()
        .filter_map(|w| w.exits.as_ref())
        .map(Exits::farthest)
        .max()
        .unwrap_or(0);
    let mut frontier = Frontier::Scan;
    let mut distance = 0u16;
    loop {
        let mut found: Vec<Vec<Decided>> = match &frontier {
            Frontier::Scan => scan_blocks(work)
                .into_par_iter()
                .fold(Vec::new, |mut found, (s, slots)| {
                    let at_distance: Vec<Decided> = slots
                        .filter_map(|slot| {
                            let value = work[s].value(slot)?;
                            (value.outcome != DbOutcome::Draw && value.distance == distance)
                                .then(|| Decided::new(s, slot as u64, value.outcome))
                        })
                        .collect();
                    for chunk in at_distance.chunks(CHUNK) {
                        take_back(tables, work, chunk, distance, &mut found);
                    }
                    found
                })
                .map(trimmed)
                .collect(),
            Frontier::Listed(lists) => lists
                .par_iter()
                .flat_map(|list| list.par_chunks(CHUNK))
                .fold(Vec::new, |mut found, chunk| {
                    take_back(tables, work, chunk, distance, &mut found);
                    found
                })
                .map(trimmed)
                .collect(),
        };
        // Step 1 decided the moves out at distances 0 and 1 itself; a
        // pair of the moving phase has none.
        if distance >= 1 && farthest > 0 {
            found.extend(decided_by_exits(work, distance + 1));
        }
        let decided = found.iter().map(Vec::len).sum::<usize>() as u64;
        progress(BuildStep::TookBack { distance, decided });
        distance += 1;
        frontier = match distance {
            // Distance 1 holds step 1's decisions as well as this round's.
            1 => Frontier::Scan,
            _ if decided == 0 && distance >= farthest => return,
            _ => Frontier::Listed(found),
        };
    }
}

/// The positions still open that a move out of the pair decides at
/// `distance`: won by it, or lost by it once every move in the pair was
/// found lost.
fn decided_by_exits(work: &[Working], distance: u16) -> Vec<Vec<Decided>> {
    let decide = |s: usize, slot: usize, value: DbValue| {
        let entry = work[s].entry(slot);
        let current = entry.load(Ordering::Relaxed);
        let open = entry_value(current) == 0;
        let decides = match value.outcome {
            DbOutcome::Win => open,
            _ => open && entry_count(current) == 0,
        };
        decides.then(|| {
            entry.store(value_entry(value.encode()), Ordering::Relaxed);
            Decided::new(s, slot as u64, value.outcome)
        })
    };
    let mut found: Vec<Vec<Decided>> = scan_blocks(work)
        .into_par_iter()
        .filter_map(|(s, slots)| work[s].exits.as_ref().map(|exits| (s, exits, slots)))
        .map(|(s, exits, slots)| {
            slots
                .filter_map(|slot| {
                    let value = exits.near(slot).filter(|v| v.distance == distance)?;
                    decide(s, slot, value)
                })
                .collect::<Vec<_>>()
        })
        .filter(|list| !list.is_empty())
        .collect();
    let far: Vec<Decided> = work
        .iter()
        .enumerate()
        .filter_map(|(s, w)| w.exits.as_ref().map(|exits| (s, exits)))
        .flat_map(|(s, exits)| {
            exits
                .far_at(distance)
                .into_iter()
                .filter_map(move |(slot, value)| decide(s, slot, value))
        })
        .collect();
    found.push(far);
    found
}

/// The entries of the pair in blocks: (sector of the pair, its slots).
fn scan_blocks(work: &[Working]) -> Vec<(usize, Range<usize>)> {
    work.iter()
        .enumerate()
        .flat_map(|(s, w)| {
            let len = w.sector.len() as usize;
            (0..len)
                .step_by(SCAN_BLOCK)
                .map(move |start| (s, start..(start + SCAN_BLOCK).min(len)))
        })
        .collect()
}

/// Takes back the last moves into the positions of `chunk`, decided at
/// `distance`, pushing onto `found` the positions they decide.
fn take_back(
    tables: &Tables,
    work: &[Working],
    chunk: &[Decided],
    distance: u16,
    found: &mut Vec<Decided>,
) {
    // The sector a non-removal move leads to: the other one of the pair.
    let partner = |s: usize| if work.len() == 1 { 0 } else { 1 - s };
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
        let flies = w.other_flies();
        for_each_predecessor(tables, mover, other, flies, |before| {
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
            let before = entry_count(entry.fetch_sub(u32::from(u.step), Ordering::Relaxed));
            debug_assert!(before & !WAY_OUT >= u.step);
            if before & !WAY_OUT != u.step || before & WAY_OUT != 0 {
                continue;
            }
            // Every move leads to a win for the opponent; a move out of
            // the pair that resists longer decides it later.
            let exits = work[u.sector].exits.as_ref();
            if exits.is_some_and(|exits| exits.loses_later(u.slot, distance + 1)) {
                continue;
            }
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
}

/// Step 3. What is still open is a draw: the finished values.
fn into_sectors(variant: Variant, work: Vec<Working>) -> Vec<BuiltSector> {
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
            let [mover_hand, other_hand] = w.hands;
            BuiltSector {
                sector: Sector {
                    mover_hand,
                    other_hand,
                    ..Sector::moving(variant, w.sector)
                },
                values,
            }
        })
        .collect()
}

/// Calls `found` with the stones `other` had before its last move (a
/// flight if `flies`), for each move that could have led here without
/// placing or removing a stone: no mill closed, or one closed with
/// nothing of the side to move on the board to remove.
#[inline]
fn for_each_predecessor(
    tables: &Tables,
    mover: Bitboard,
    other: Bitboard,
    flies: bool,
    mut found: impl FnMut(Bitboard),
) {
    let empty = !(mover | other);
    for to in other {
        if !mover.is_empty() && tables.closes_mill(other.without(to), to) {
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
