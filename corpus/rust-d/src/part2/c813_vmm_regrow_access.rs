//! case: a paged KV pool grows by reserving a larger range, remapping the existing physical chunk at its start and mapping a new chunk after it, but grants access only to the new chunk ("the old pages already had access"): a new mapping starts with no access, so the compaction kernel that reads the old pages at the new address faults
//! expect: vmm_lifecycle=1

use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const COMPACT_SRC: &str = r#"
extern "C" __global__ void compact_pages(float* pool, const unsigned int* live, unsigned int n_live, unsigned int page_elems) {
    unsigned int p = blockIdx.x;
    if (p >= n_live) return;
    const float* src = pool + (size_t)live[p] * page_elems;
    float* dst = pool + (size_t)p * page_elems;
    // live[] is sorted and live[p] >= p: pages only move towards the front
    for (unsigned int i = threadIdx.x; i < page_elems; i += blockDim.x) dst[i] = src[i];
}
"#;

pub struct KvPool {
    stream: Arc<CudaStream>,
    compact: CudaFunction,
    prop: sys::CUmemAllocationProp,
    va: CUdeviceptr,
    size: usize,
    chunk: usize,
    handles: Vec<CUmemGenericAllocationHandle>,
}

impl KvPool {
    fn access(&self) -> sys::CUmemAccessDesc {
        sys::CUmemAccessDesc { location: self.prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE }
    }

    pub fn new(ctx: &Arc<CudaContext>, chunk: usize) -> Result<KvPool, Box<dyn std::error::Error>> {
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = ctx.ordinal() as i32;
        let (mut va, mut handle) = (0, 0);
        unsafe {
            sys::cuMemAddressReserve(&mut va, chunk, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, chunk, &prop, 0).result()?;
            sys::cuMemMap(va, chunk, 0, handle, 0).result()?;
        }
        let compact = ctx.load_module(compile_ptx(COMPACT_SRC)?)?.load_function("compact_pages")?;
        let pool = KvPool { stream: ctx.new_stream()?, compact, prop, va, size: chunk, chunk, handles: vec![handle] };
        unsafe { sys::cuMemSetAccess(pool.va, pool.size, &pool.access(), 1).result()? };
        Ok(pool)
    }

    /// Doubles the pool: [old chunk | new chunk] at a fresh, larger reservation.
    pub fn grow(&mut self) -> Result<(), DriverError> {
        assert_eq!(self.handles.len(), 1, "grows once, from one chunk to two");
        self.stream.synchronize()?;
        let old = self.handles[0];
        let mut new_va = 0;
        let mut new_handle = 0;
        unsafe {
            sys::cuMemUnmap(self.va, self.size).result()?;
            sys::cuMemAddressFree(self.va, self.size).result()?;
            sys::cuMemAddressReserve(&mut new_va, 2 * self.chunk, 0, 0, 0).result()?;
            sys::cuMemMap(new_va, self.chunk, 0, old, 0).result()?;
            sys::cuMemCreate(&mut new_handle, self.chunk, &self.prop, 0).result()?;
            sys::cuMemMap(new_va + self.chunk as u64, self.chunk, 0, new_handle, 0).result()?;
            // only the new pages need access: the old ones were granted in `new`
            sys::cuMemSetAccess(new_va + self.chunk as u64, self.chunk, &self.access(), 1).result()?;
        }
        self.handles.push(new_handle);
        self.va = new_va;
        self.size = 2 * self.chunk;
        Ok(())
    }

    pub fn compact(&mut self, live: &cudarc::driver::CudaSlice<u32>, n_live: u32, page_elems: u32) -> Result<(), DriverError> {
        let pool = self.va;
        let cfg = LaunchConfig { grid_dim: (n_live, 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        let mut launch = self.stream.launch_builder(&self.compact);
        launch.arg(&pool).arg(live).arg(&n_live).arg(&page_elems);
        unsafe { launch.launch(cfg) }?; // EXPECT: vmm_lifecycle
        Ok(())
    }
}

pub fn grow_then_compact(pool: &mut KvPool, live: &cudarc::driver::CudaSlice<u32>, n_live: u32) -> Result<(), DriverError> {
    pool.grow()?;
    pool.compact(live, n_live, 4096)
}
