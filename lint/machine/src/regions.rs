//! Where regions are, as the front end sees them: the machine names memory and objects by
//! [`Loc`] and asks the front end how locations nest (a field of a struct in a `Vec`'s memory is
//! inside that memory) and which physical allocation a VMM mapping maps.

use crate::set::{Id, IdSet};

/// A location the front end knows: memory (a region or a part of one) or an object (a stream,
/// an event). The machine compares them only through [`Regions`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc(pub u32);

impl Id for Loc {
    fn index(self) -> u32 {
        self.0
    }
    fn from_index(i: u32) -> Self {
        Loc(i)
    }
}

pub type LocSet = IdSet<Loc>;

/// The front end's answers about locations.
pub trait Regions {
    /// The kind of memory at `l`; `None` when `l` is not memory (an object, a plain value).
    fn mem_kind(&self, l: Loc) -> Option<crate::MemKind>;
    /// Whether `a` and `b` may denote overlapping memory (one contains the other).
    fn overlaps(&self, a: Loc, b: Loc) -> bool;
    /// The whole allocation `l` is part of (itself if it is one).
    fn root(&self, l: Loc) -> Loc;
    /// The allocation `l` is part of, where that is known: its [`Regions::root`], unless `l`
    /// is only reached through a pointer stored inside that root (what a buffer's element
    /// points to is not the buffer's memory).
    fn allocation(&self, l: Loc) -> Option<Loc> {
        Some(self.root(l))
    }
    /// Whether `inner` is `outer` or a part of it.
    fn within(&self, inner: Loc, outer: Loc) -> bool {
        inner == outer
    }
    /// The VMM mapping `l` is part of: its whole reservation, or the view of it at an offset
    /// (a mirrored ring buffer maps one allocation at `base` and at `base + size` of one
    /// reservation: two mappings). The same as [`Regions::root`] where views are not told apart.
    fn mapping(&self, l: Loc) -> Loc {
        self.root(l)
    }
    /// Whether the mapping `view` (see [`Regions::mapping`]) is at an offset of its reservation
    /// the analysis does not know (`base + i * size`): it may be any view of the reservation.
    fn at_unknown_offset(&self, _view: Loc) -> bool {
        false
    }
    /// Whether `a` and `b` are places of one allocation at offsets written differently (`d` and
    /// `d + half`, `h + lo` and `h + hi`), whose bytes the analysis cannot show to be the same:
    /// work on two parts of one buffer. VMM mappings are [`Regions::mapping`]'s.
    fn apart(&self, _a: Loc, _b: Loc) -> bool {
        false
    }
    /// Whether the memory at `l` is one of several allocations the front end does not tell
    /// apart (made by one call in a loop, the elements of an array of buffers): work on one of
    /// them and an access to one of them are the same buffer only where the program says so.
    fn one_of_many(&self, _l: Loc) -> bool {
        false
    }
    /// Whether the memory at `l` is write-combined pinned memory (`CU_MEMHOSTALLOC_WRITECOMBINED`).
    fn write_combined(&self, _l: Loc) -> bool {
        false
    }
    /// Whether the managed memory `l` is attached to the host or to one stream
    /// (`cudaMemAttachHost`, `cudaStreamAttachMemAsync(.., cudaMemAttachSingle)`): kernels on
    /// other streams do not take it.
    fn attached(&self, _l: Loc) -> bool {
        false
    }
    /// For managed memory attached to one stream (`...AttachSingle`), the stream objects it
    /// may be attached to: kernels on those streams do take it. Empty: the host, or unknown.
    fn attached_streams(&self, _l: Loc) -> LocSet {
        LocSet::new()
    }
    /// The allocator that made the memory `l` is part of, when the analysis saw it made.
    fn allocator(&self, _l: Loc) -> Option<crate::Allocator> {
        None
    }
    /// How many bytes the allocation `l` holds, where its size is known (`cudaMalloc(&p, n)`
    /// with `n` a constant, an array, a scalar); `None` for a part of one, or unknown.
    fn bytes(&self, _l: Loc) -> Option<u64> {
        None
    }
    /// Whether `l` stands for a null pointer (a pointer never given memory): it is no memory.
    fn is_null(&self, _l: Loc) -> bool {
        false
    }
    /// The physical allocations the VMM mapping `mapping` (see [`Regions::mapping`]) maps;
    /// `None` when not known (a mapping from a parameter), which pairs it with nothing.
    fn physical(&self, mapping: Loc) -> Option<LocSet>;
}
