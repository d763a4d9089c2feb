//! case: a KV-cache arena built on the driver's VMM API reserves a range, creates and maps the physical chunks, then zero-fills the range with cuMemsetD32Async without ever calling cuMemSetAccess on the new mappings
//! expect: vmm_lifecycle=1

use std::mem::zeroed;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, DriverError};

pub struct KvArena {
    _ctx: Arc<CudaContext>,
    base: sys::CUdeviceptr,
    reserved: usize,
    chunk: usize,
    handles: Vec<sys::CUmemGenericAllocationHandle>,
    stream: sys::CUstream,
}

fn pinned_prop(ordinal: i32) -> sys::CUmemAllocationProp {
    let mut prop: sys::CUmemAllocationProp = unsafe { zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = ordinal;
    prop
}

/// Builds an arena of `chunks` chunks of at least `chunk_hint` bytes each, zero-filled.
pub fn build_arena(ctx: Arc<CudaContext>, chunk_hint: usize, chunks: usize) -> Result<KvArena, DriverError> {
    ctx.bind_to_thread()?;
    let prop = pinned_prop(ctx.ordinal() as i32);
    let mut gran = 0usize;
    unsafe {
        sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
            .result()?;
    }
    let chunk = chunk_hint.div_ceil(gran) * gran;
    let reserved = chunk * chunks;

    let mut base: sys::CUdeviceptr = 0;
    let mut stream: sys::CUstream = null_mut();
    let mut handles = Vec::with_capacity(chunks);
    unsafe {
        sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
        sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0).result()?;
        for i in 0..chunks {
            let mut h: sys::CUmemGenericAllocationHandle = 0;
            sys::cuMemCreate(&mut h, chunk, &prop, 0).result()?;
            sys::cuMemMap(base + (i * chunk) as u64, chunk, 0, h, 0).result()?;
            handles.push(h);
        }
        // Fresh KV pages must read as zero before the first decode step.
        sys::cuMemsetD32Async(base, 0, reserved / 4, stream).result()?; // EXPECT: vmm_lifecycle
        sys::cuStreamSynchronize(stream).result()?;
    }
    Ok(KvArena { _ctx: ctx, base, reserved, chunk, handles, stream })
}

impl KvArena {
    pub fn page(&self, i: usize) -> sys::CUdeviceptr {
        assert!(i < self.handles.len());
        self.base + (i * self.chunk) as u64
    }
}

impl Drop for KvArena {
    fn drop(&mut self) {
        unsafe {
            sys::cuStreamSynchronize(self.stream);
            sys::cuMemUnmap(self.base, self.reserved);
            for h in self.handles.drain(..) {
                sys::cuMemRelease(h);
            }
            sys::cuMemAddressFree(self.base, self.reserved);
            sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
