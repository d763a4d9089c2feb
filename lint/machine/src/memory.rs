//! What the machine knows of memory: the kinds of regions, the direction of copies, what
//! freeing does, and how the host touches memory.

/// What kind of memory a region is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemKind {
    /// Ordinary host memory (`Vec`, `Box`, arrays, the stack, `malloc`).
    Pageable,
    /// Page-locked host memory (`cuMemHostAlloc`, `cuMemAllocHost`, registered memory).
    Pinned,
    /// Device memory (`cuMemAlloc`); the host cannot dereference it.
    Device,
    /// Managed memory (`cuMemAllocManaged`): host and device, one at a time.
    Managed,
    /// A VMM mapping (`cuMemMap`) of a physical allocation; device memory.
    VmmMapping,
    /// Host memory of a kind the analysis cannot see (a `&[T]` parameter, say).
    Unknown,
}

impl MemKind {
    /// Memory the host must not dereference.
    pub fn is_device_only(self) -> bool {
        matches!(self, MemKind::Device | MemKind::VmmMapping)
    }

    /// Memory that asynchronous work can still be using after the call that enqueued it
    /// returned. Pageable memory cannot: the driver stages it or copies synchronously (unless
    /// it was page-locked in place, which the state tracks: see [`crate::State::registered_may`]).
    pub fn can_be_in_flight(self) -> bool {
        !matches!(self, MemKind::Pageable)
    }

    /// A short description for diagnostics.
    pub fn describe(self) -> &'static str {
        match self {
            MemKind::Pageable => "pageable host memory",
            MemKind::Pinned => "pinned host memory",
            MemKind::Device => "device memory",
            MemKind::Managed => "managed memory",
            MemKind::VmmMapping => "a VMM mapping",
            MemKind::Unknown => "host memory",
        }
    }
}

/// The direction of a copy, which decides which side is host memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
    /// Both sides host memory (`cudaMemcpyHostToHost`).
    HostToHost,
    /// Not known (unified addressing with sides of unknown kind).
    Unknown,
}

/// What dropping or freeing memory does with work still using it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FreeKind {
    /// Waits for the work using the memory before releasing, as its API documents (this
    /// project's runtime layer, cudarc's `PinnedHostSlice`, unregistering).
    Waits,
    /// Waits for the device before releasing only because the driver happens to (`cudaFree`,
    /// `cuMemFree`, `cudaFreeHost`, `cuMemFreeHost`: they "may perform implicit
    /// synchronization", no more): what relies on it is `relies_on_implicit_sync`'s.
    WaitsImplicitly,
    /// Releases at once; work still using the memory reads or writes freed memory.
    Immediate,
    /// Released in the order of the stream the memory was allocated on (`cuMemFreeAsync`, a
    /// cudarc `CudaSlice`): unordered work on another stream still using it races with the free.
    StreamOrdered,
}

/// Which allocator made memory, which decides the function that must release it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Allocator {
    /// `cuMemAlloc`, `cuMemAllocPitch`, `cuMemAllocAsync`, `cuMemAllocManaged`, `cudaMalloc`...:
    /// released by `cuMemFree`/`cudaFree` (or their stream-ordered forms).
    Device,
    /// `cuMemAllocHost`, `cuMemHostAlloc`, `cudaMallocHost`, `cudaHostAlloc`: released by
    /// `cuMemFreeHost`/`cudaFreeHost`.
    PinnedHost,
    /// The C heap (`malloc`, `calloc`, `realloc`, `posix_memalign`...): released by `free`.
    CHeap,
    /// C++ `new[]` (and `new`): released by `delete[]` (`delete`).
    CppNew,
    /// Rust's global allocator (`vec![..]`, `Vec::with_capacity`, `Box::new`, `String`):
    /// released by dropping its owner, never by a C or CUDA function (judged where it is
    /// unregistered: see `lints::mismatched_free`).
    RustHeap,
    /// A C++ standard container's own memory (`std::vector`'s buffer): released by the
    /// container's destructor, never by a C or CUDA function (judged, like `RustHeap`, where
    /// it is unregistered).
    CppContainer,
    /// Not allocated: a module's global (`cuModuleGetGlobal`, `cudaGetSymbolAddress`), which
    /// lives as long as its module and is never freed.
    ModuleGlobal,
}

impl Allocator {
    /// Whether memory of `kind` this allocator makes starts with unspecified contents the
    /// device may read (`cudaMalloc`, `cuMemAlloc`: "the memory is not cleared").
    pub fn leaves_uninitialized(self, kind: MemKind) -> bool {
        kind == MemKind::Device && self == Allocator::Device
    }

    /// Whether memory this allocator makes is the program's to release (device, pinned,
    /// managed memory; not a module's variable, not the C heap's).
    pub fn owned_by_program(self) -> bool {
        matches!(self, Allocator::Device | Allocator::PinnedHost)
    }

    /// What made the memory, for diagnostics.
    pub fn made_by(self) -> &'static str {
        match self {
            Allocator::Device => "device memory from `cuMemAlloc`/`cudaMalloc`",
            Allocator::PinnedHost => "pinned host memory from `cuMemAllocHost`/`cuMemHostAlloc`/`cudaMallocHost`",
            Allocator::CHeap => "C heap memory from `malloc`",
            Allocator::CppNew => "memory from C++ `new[]`",
            Allocator::RustHeap => "memory a Rust `Vec`, `Box` or `String` owns",
            Allocator::CppContainer => "memory a C++ container (`std::vector`) owns",
            Allocator::ModuleGlobal => "a module's global variable (`cuModuleGetGlobal`), not an allocation",
        }
    }

    /// What it made, in two words.
    pub fn short(self) -> &'static str {
        match self {
            Allocator::Device => "device memory",
            Allocator::PinnedHost => "pinned host memory",
            Allocator::CHeap => "C heap memory",
            Allocator::CppNew => "`new[]` memory",
            Allocator::RustHeap => "Rust heap memory",
            Allocator::CppContainer => "a C++ container's memory",
            Allocator::ModuleGlobal => "a module's global",
        }
    }

    /// The functions that release what it made.
    pub fn released_by(self) -> &'static str {
        match self {
            Allocator::Device => "`cuMemFree`/`cudaFree` (or `cuMemFreeAsync`/`cudaFreeAsync`)",
            Allocator::PinnedHost => "`cuMemFreeHost`/`cudaFreeHost`",
            Allocator::CHeap => "`free`",
            Allocator::CppNew => "`delete[]`",
            Allocator::RustHeap => "`drop` of the `Vec`/`Box` that owns it",
            Allocator::CppContainer => "the destructor of the container that owns it",
            Allocator::ModuleGlobal => "nothing: it goes with its module (`cuModuleUnload`)",
        }
    }
}

/// How host code touches memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    Read,
    Write,
    /// Freed or dropped.
    Free,
    /// Reused by an operation on another stream.
    Reuse,
}
