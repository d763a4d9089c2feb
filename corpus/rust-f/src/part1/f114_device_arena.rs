//! case: a bump arena lives in a VMM mapping (runtime layer `VirtualRange::map`); a kernel allocates from it and updates the header at its start, and `used_bytes` reads that header with `ptr::read` on the mapping's device address after synchronizing (the blocking-copy variant next to it is the right way)
//! expect: host_deref_device_ptr=1

use cuda_lint_runtime::{
    Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange,
};
use cudarc::driver::sys;

const ARENA_SRC: &str = r#"
struct ArenaHeader { unsigned long long capacity; unsigned long long used; unsigned int allocations; unsigned int magic; };

extern "C" __global__ void arena_init(ArenaHeader* h, unsigned long long capacity)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) { h->capacity = capacity; h->used = sizeof(ArenaHeader); h->allocations = 0; h->magic = 0xA11CA7Eu; }
}

extern "C" __global__ void arena_alloc_many(ArenaHeader* h, const unsigned int* sizes, unsigned long long* offsets, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long sz = (sizes[i] + 255ull) & ~255ull;
    unsigned long long off = atomicAdd(&h->used, sz);
    offsets[i] = off + sz <= h->capacity ? off : ~0ull;
    atomicAdd(&h->allocations, 1u);
}
"#;

#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct ArenaHeader {
    pub capacity: u64,
    pub used: u64,
    pub allocations: u32,
    pub magic: u32,
}

pub struct DeviceArena {
    stream: Stream,
    init: Kernel,
    alloc_many: Kernel,
    mapping: Mapping,
    _physical: PhysicalAllocation,
}

impl DeviceArena {
    pub fn new(ctx: &Context, min_bytes: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let size = min_bytes.div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, size)?;
        let mapping = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        let module = ctx.load_cuda(ARENA_SRC)?;
        let arena = Self {
            stream: ctx.new_stream()?,
            init: module.function("arena_init")?,
            alloc_many: module.function("arena_alloc_many")?,
            mapping,
            _physical: physical,
        };
        let capacity = size as u64;
        unsafe { arena.stream.launch(&arena.init, LaunchConfig::for_num_elems(1), &[&arena.mapping, &capacity])? };
        Ok(arena)
    }

    pub fn allocate(&self, sizes: &DeviceBuffer<u32>, offsets: &mut DeviceBuffer<u64>) -> Result<()> {
        let n = sizes.len() as u32;
        unsafe { self.stream.launch(&self.alloc_many, LaunchConfig::for_num_elems(n), &[&self.mapping, sizes, offsets, &n]) }
    }

    /// Header through a blocking copy into a stack value.
    pub fn header(&self) -> Result<ArenaHeader> {
        self.stream.synchronize()?;
        let mut h = ArenaHeader::default();
        let rc = unsafe {
            sys::cuMemcpyDtoH_v2((&mut h as *mut ArenaHeader).cast(), self.mapping.device_ptr().as_raw(), std::mem::size_of::<ArenaHeader>())
        };
        if rc != sys::CUresult::CUDA_SUCCESS {
            return Err(cuda_lint_runtime::Error::InvalidArgument { call: "cuMemcpyDtoH_v2", reason: format!("{rc:?}") });
        }
        Ok(h)
    }

    /// Quick check used by the allocator's statistics.
    pub fn used_bytes(&self) -> Result<u64> {
        self.stream.synchronize()?;
        let header = unsafe { std::ptr::read(self.mapping.device_ptr().as_raw() as *const ArenaHeader) }; // EXPECT: host_deref_device_ptr
        Ok(header.used)
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let arena = DeviceArena::new(&ctx, 64 << 20)?;
    let sizes: Vec<u32> = (0..4096).map(|i| 64 + (i % 17) * 32).collect();
    let stream = ctx.new_stream()?;
    let mut pinned = ctx.alloc_pinned::<u32>(sizes.len())?;
    pinned.copy_from_slice(&sizes);
    let d_sizes = stream.clone_htod(&pinned)?;
    let mut d_offsets = ctx.alloc::<u64>(sizes.len())?;
    arena.allocate(&d_sizes, &mut d_offsets)?;
    let h = arena.header()?;
    println!("{} allocations, {} of {} bytes", h.allocations, h.used, h.capacity);
    println!("used (fast path): {}", arena.used_bytes()?);
    Ok(())
}
