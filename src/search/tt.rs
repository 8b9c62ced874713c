//! The transposition table: search results by position key, shared by all
//! search threads without locks.
//!
//! An entry is two 64-bit words, the data and the key xored with the data,
//! written with relaxed atomics. Threads may race on an entry and leave one
//! word from each writer; such an entry fails the key check (`key ^ data`
//! no longer gives the key) and reads as a miss, so a race costs a lost
//! entry, never a wrong one. Four entries make a 64-byte cluster, one cache
//! line, and a position may live in any entry of its cluster.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use rayon::prelude::*;

use thiserror::Error;

use crate::board::Move;

/// What the stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The score is exact.
    Exact,
    /// The true value is at least the score (the search failed high).
    Lower,
    /// The true value is at most the score (the search failed low).
    Upper,
}

/// A stored search result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The best move found, if any.
    pub mv: Option<Move>,
    /// The score, with mate scores relative to the stored position.
    pub score: i16,
    /// The depth searched.
    pub depth: u8,
    /// How the score bounds the true value.
    pub bound: Bound,
}

const ENTRIES_PER_CLUSTER: usize = 4;
const CLUSTER_BYTES: usize = ENTRIES_PER_CLUSTER * std::mem::size_of::<Slot>();
const GENERATION_BITS: u32 = 6;
const GENERATION_MASK: u8 = (1 << GENERATION_BITS) - 1;

/// An entry: the key check, then the data.
type Slot = [AtomicU64; 2];
/// One cache line of entries.
type Cluster = [Slot; ENTRIES_PER_CLUSTER];

/// A lock-free table of search results, sized in MiB.
pub struct TranspositionTable {
    /// Zeroed memory straight from the allocator (the system's zero
    /// pages), touched on every core at once.
    /// One cluster more than used, so that the clusters can start on a
    /// cache line.
    slots: Box<[Slot]>,
    /// The slot at which the first cluster starts.
    first: usize,
    clusters: usize,
    generation: AtomicU8,
}

impl Entry {
    fn pack(self, generation: u8) -> u64 {
        let bound = match self.bound {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        u64::from(self.mv.map_or(u16::MAX, Move::code))
            | u64::from(self.score as u16) << 16
            | u64::from(self.depth) << 48
            | (bound | u64::from(generation & GENERATION_MASK) << 2) << 56
    }

    /// The entry in `data`, or `None` for an empty slot.
    fn unpack(data: u64) -> Option<(Entry, u8)> {
        let bound = match (data >> 56) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => return None,
        };
        let entry = Entry {
            mv: Move::from_code(data as u16),
            score: (data >> 16) as u16 as i16,
            depth: (data >> 48) as u8,
            bound,
        };
        Some((entry, (data >> 58) as u8 & GENERATION_MASK))
    }
}

impl TranspositionTable {
    /// The largest size accepted, in MiB.
    pub const MAX_MIB: usize = 1 << 16;

    /// A table of `mib` MiB.
    ///
    /// # Errors
    ///
    /// [`HashAllocError`] if the memory cannot be had.
    pub fn new(mib: usize) -> Result<TranspositionTable, HashAllocError> {
        let clusters = (mib.max(1) << 20) / CLUSTER_BYTES;
        let slots: Box<[Slot]> =
            bytemuck::allocation::try_zeroed_slice_box((clusters + 1) * ENTRIES_PER_CLUSTER)
                .map_err(|()| HashAllocError { mib })?;
        let misalignment = slots.as_ptr() as usize % CLUSTER_BYTES;
        let first = (CLUSTER_BYTES - misalignment) % CLUSTER_BYTES / std::mem::size_of::<Slot>();
        let table = TranspositionTable {
            slots,
            first,
            clusters,
            generation: AtomicU8::new(0),
        };
        table.touch_every_page();
        Ok(table)
    }

    /// Has the system back every page of the new table now, on every
    /// core. Zeroed memory comes untouched, and each first write to a page
    /// costs a fault: taken during a search, those faults cost a fast game
    /// real strength, in time the search does not have. No
    /// search holds the table yet, so writing the zero it holds is safe.
    fn touch_every_page(&self) {
        const SLOTS_PER_PAGE: usize = 4096 / std::mem::size_of::<Slot>();
        self.slots
            .par_chunks(SLOTS_PER_PAGE * 64)
            .for_each(|chunk| {
                for slot in chunk.iter().step_by(SLOTS_PER_PAGE) {
                    slot[0].store(0, Ordering::Relaxed);
                }
            });
    }

    /// Forgets every entry, zeroing the table on every core.
    pub fn clear(&mut self) {
        self.slots
            .par_iter_mut()
            .for_each(|slot| *slot = Slot::default());
        *self.generation.get_mut() = 0;
    }

    /// Marks the start of a new search, so that older entries are replaced first.
    pub fn new_search(&self) {
        let next = (self.generation.load(Ordering::Relaxed) + 1) & GENERATION_MASK;
        self.generation.store(next, Ordering::Relaxed);
    }

    #[inline]
    fn cluster(&self, key: u64) -> &Cluster {
        // Multiply-shift maps the key onto the table without a division.
        let index = ((u128::from(key) * self.clusters as u128) >> 64) as usize;
        let start = self.first + index * ENTRIES_PER_CLUSTER;
        self.slots[start..start + ENTRIES_PER_CLUSTER]
            .try_into()
            .expect("a cluster is ENTRIES_PER_CLUSTER slots")
    }

    /// The entry stored for `key`, if any.
    #[inline]
    pub(crate) fn probe(&self, key: u64) -> Option<Entry> {
        self.cluster(key).iter().find_map(|slot| {
            let data = slot[1].load(Ordering::Relaxed);
            let check = slot[0].load(Ordering::Relaxed);
            if check ^ data != key {
                return None;
            }
            Entry::unpack(data).map(|(entry, _)| entry)
        })
    }

    /// Stores `entry` for `key`, replacing the same position's entry or the
    /// least valuable one of the cluster: the shallowest, older searches
    /// counting as shallower.
    #[inline]
    pub(crate) fn store(&self, key: u64, mut entry: Entry) {
        let generation = self.generation.load(Ordering::Relaxed);
        let cluster = self.cluster(key);
        let mut victim = 0;
        let mut victim_worth = i32::MAX;
        for (i, slot) in cluster.iter().enumerate() {
            let data = slot[1].load(Ordering::Relaxed);
            let check = slot[0].load(Ordering::Relaxed);
            let Some((old, old_generation)) = Entry::unpack(data) else {
                victim = i;
                victim_worth = i32::MIN;
                continue;
            };
            if check ^ data == key {
                // Keep a deeper result of this search for the same position
                // unless the new one is exact.
                if old.depth > entry.depth + 2
                    && old_generation == generation
                    && entry.bound != Bound::Exact
                {
                    return;
                }
                if entry.mv.is_none() {
                    entry.mv = old.mv;
                }
                victim = i;
                break;
            }
            let age = i32::from(generation.wrapping_sub(old_generation) & GENERATION_MASK);
            let worth = i32::from(old.depth) - 8 * age;
            if worth < victim_worth {
                victim = i;
                victim_worth = worth;
            }
        }
        let data = entry.pack(generation);
        cluster[victim][0].store(key ^ data, Ordering::Relaxed);
        cluster[victim][1].store(data, Ordering::Relaxed);
    }

    /// How full the table is with entries of the current search, in
    /// thousandths, from a sample of the first clusters.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Ordering::Relaxed);
        let sample = &self.slots[self.first..][..self.clusters.min(250) * ENTRIES_PER_CLUSTER];
        let used = sample
            .iter()
            .filter_map(|slot| Entry::unpack(slot[1].load(Ordering::Relaxed)))
            .filter(|&(_, g)| g == generation)
            .count();
        (used * 1000 / sample.len().max(1)) as u32
    }
}

/// The memory for a transposition table could not be had.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("cannot allocate {mib} MiB for the transposition table")]
pub struct HashAllocError {
    /// The size asked for, in MiB.
    pub mib: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(depth: u8, score: i16) -> Entry {
        Entry {
            mv: Some("d6-d5xb4".parse().unwrap()),
            score,
            depth,
            bound: Bound::Lower,
        }
    }

    #[test]
    fn stores_and_finds_by_key() {
        let tt = TranspositionTable::new(1).unwrap();
        assert_eq!(tt.probe(42), None);
        tt.store(42, entry(5, -300));
        assert_eq!(tt.probe(42), Some(entry(5, -300)));
        assert_eq!(tt.probe(43), None);
    }

    #[test]
    fn a_cluster_keeps_the_deepest_entries() {
        let tt = TranspositionTable::new(1).unwrap();
        // Keys that differ only in their low bits share a cluster.
        let keys: Vec<u64> = (0..5).map(|i| 0xABCD_0000_0000_0000 | i).collect();
        for (i, &key) in keys.iter().enumerate() {
            tt.store(key, entry(10 - i as u8, 1));
        }
        assert!(tt.probe(keys[0]).is_some());
        assert!(tt.probe(keys[4]).is_some());
        assert_eq!(keys.iter().filter(|&&k| tt.probe(k).is_some()).count(), 4);
    }

    #[test]
    fn hashfull_counts_this_search_only() {
        let mut tt = TranspositionTable::new(1).unwrap();
        for key in 0..100_000u64 {
            tt.store(key.wrapping_mul(0x9E37_79B9_7F4A_7C15), entry(1, 0));
        }
        assert!(tt.hashfull() > 900);
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
        tt.clear();
        assert_eq!(tt.probe(0), None);
    }
}
