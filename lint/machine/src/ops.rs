//! Operations: work enqueued on a stream (a copy, a memset, a kernel launch), with the streams it
//! may run on and the memory it may read and write. One operation stands for every execution of
//! one call site: what it touches grows monotonically while the front end iterates.

use crate::advice::Advice;
use crate::regions::LocSet;
use crate::set::{Id, IdSet};

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub u32);

impl Id for OpId {
    fn index(self) -> u32 {
        self.0
    }
    fn from_index(i: u32) -> Self {
        OpId(i)
    }
}

pub type OpSet = IdSet<OpId>;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    Copy,
    Memset,
    Launch,
    /// A nonblocking operation of a library that works on the host's timeline (CUDA-aware MPI's
    /// `MPI_Isend`, `MPI_Irecv`): its "streams" are its requests, which only completing them
    /// (`MPI_Wait`) finishes; no CUDA wait does ([`crate::Machine::complete_requests`]).
    Request,
    /// A CUDA library's routine on a stream (`cublasSgemm`, `cufftExecC2C`, `ncclAllReduce`):
    /// work like a kernel's, whose code is the library's.
    Library,
    /// A launch of an executable graph (`cudaGraphLaunch`): the work captured into it, run on
    /// the launch's stream.
    Graph,
}

/// Why a library routine ran on the legacy default stream: its handle's stream was never set
/// (the note both front ends give such a routine's findings).
pub const UNSET_HANDLE_NOTE: &str = "the routine's handle has no stream set, so it runs on the legacy default stream \
                                     (set one with `cublasSetStream`, `cudnnSetStream`, `cufftSetStream` or `curandSetStream`; cudarc's `CudaBlas::set_stream`)";

impl OpKind {
    pub fn describe(self) -> &'static str {
        match self {
            OpKind::Copy => "asynchronous copy",
            OpKind::Memset => "asynchronous memset",
            OpKind::Launch => "kernel launch",
            OpKind::Request => "nonblocking MPI operation",
            OpKind::Library => "library routine",
            OpKind::Graph => "graph launch",
        }
    }
}

/// What an operation touches and where it runs.
#[derive(Clone, Debug)]
pub struct Op {
    pub kind: OpKind,
    /// The stream objects it may run on (empty: not known, which orders it with everything).
    pub streams: LocSet,
    pub reads: LocSet,
    pub writes: LocSet,
    /// How users of the API that enqueued it wait for it or order it.
    pub advice: &'static Advice,
    /// What the API family that enqueued it has to say about it in a diagnostic (cudarc: that
    /// it recorded no event for it).
    pub notes: Vec<&'static str>,
    /// It uses host memory in stream order whatever its kind, pageable included (a batch
    /// copy's destinations, and its sources unless read during the call): other work keeps
    /// pageable memory only while the call runs.
    pub host_in_stream_order: bool,
    /// Its writes are assumed, not seen: a kernel whose source the analysis could not read is
    /// taken to write every argument. A finding that rests on them alone is `unverified`'s.
    pub writes_unseen: bool,
    /// Enqueued by a call its API calls synchronous (`cudaMemcpy`, `cudaMemset`, `cuMemsetD8`):
    /// what may still run of it after the call (a memset of device memory, the DMA of an upload
    /// staged from pageable memory) is not work the code is expected to wait for.
    pub blocking: bool,
}

impl Op {
    /// Whether it may read or write memory overlapping any of `data`.
    pub fn uses_any(&self, data: &LocSet, regions: &dyn crate::Regions) -> bool {
        self.reads
            .iter()
            .chain(self.writes.iter())
            .any(|u| data.iter().any(|d| regions.overlaps(u, d)))
    }
}
