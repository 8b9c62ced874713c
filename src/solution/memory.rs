//! Large arrays that generation reads and writes at random, in huge pages
//! where the system has them: with 4 KiB pages nearly every random touch
//! of a gigabyte array also misses the address cache (TLB), which costs
//! more than the memory access itself (docs/ENDGAME.md has the figures).

use std::marker::PhantomData;

/// A zeroed array of atomics (`AtomicU32`, `AtomicU8`), in huge pages
/// where possible.
pub(super) struct HugeAtomics<A> {
    #[cfg(feature = "mmap")]
    map: memmap2::MmapMut,
    #[cfg(not(feature = "mmap"))]
    atomics: Box<[A]>,
    len: usize,
    kind: PhantomData<A>,
}

impl<A: bytemuck::Zeroable> HugeAtomics<A> {
    /// `len` atomics, all zero.
    ///
    /// # Panics
    ///
    /// If the memory cannot be had.
    pub(super) fn zeroed(len: usize) -> HugeAtomics<A> {
        HugeAtomics {
            #[cfg(feature = "mmap")]
            map: huge_anonymous_map(len.max(1) * std::mem::size_of::<A>()),
            #[cfg(not(feature = "mmap"))]
            atomics: bytemuck::zeroed_slice_box(len),
            len,
            kind: PhantomData,
        }
    }

    /// The atomics.
    pub(super) fn as_slice(&self) -> &[A] {
        #[cfg(feature = "mmap")]
        {
            // SAFETY: the map is at least `len` atomics long, page-aligned
            // (so aligned for any atomic), zero-filled by the system and
            // owned by `self`, which the slice borrows; all zeros is a
            // valid `A` (`Zeroable`), an atomic changes only through its
            // own methods, and the map is never reached otherwise while
            // the slice lives.
            unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<A>(), self.len) }
        }
        #[cfg(not(feature = "mmap"))]
        {
            &self.atomics
        }
    }
}

/// A zeroed array of bytes, in huge pages where possible: a file's
/// payload decoded whole.
pub(super) struct HugeBytes {
    #[cfg(feature = "mmap")]
    map: memmap2::MmapMut,
    #[cfg(not(feature = "mmap"))]
    bytes: Vec<u8>,
    len: usize,
}

impl HugeBytes {
    /// `len` bytes, all zero.
    ///
    /// # Panics
    ///
    /// If the memory cannot be had.
    pub(super) fn zeroed(len: usize) -> HugeBytes {
        HugeBytes {
            #[cfg(feature = "mmap")]
            map: huge_anonymous_map(len),
            #[cfg(not(feature = "mmap"))]
            bytes: vec![0; len],
            len,
        }
    }
}

impl std::ops::Deref for HugeBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        #[cfg(feature = "mmap")]
        {
            &self.map[..self.len]
        }
        #[cfg(not(feature = "mmap"))]
        {
            &self.bytes[..self.len]
        }
    }
}

impl std::ops::DerefMut for HugeBytes {
    fn deref_mut(&mut self) -> &mut [u8] {
        #[cfg(feature = "mmap")]
        {
            &mut self.map[..self.len]
        }
        #[cfg(not(feature = "mmap"))]
        {
            &mut self.bytes[..self.len]
        }
    }
}

/// An anonymous (zero-filled) map of `bytes`, asking for huge pages.
///
/// # Panics
///
/// If the memory cannot be had.
#[cfg(feature = "mmap")]
pub(super) fn huge_anonymous_map(bytes: usize) -> memmap2::MmapMut {
    let map = memmap2::MmapOptions::new()
        .len(bytes.max(1))
        .map_anon()
        .unwrap_or_else(|e| panic!("cannot have {bytes} bytes of memory: {e}"));
    // Only advice: without huge pages the arrays work, only slower.
    #[cfg(target_os = "linux")]
    let _ = map.advise(memmap2::Advice::HugePage);
    map
}
