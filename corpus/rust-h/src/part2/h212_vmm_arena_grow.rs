//! case: growable device arena for a query engine's hash tables on the VMM driver API; `grow` maps a new chunk and zero-fills it with `cuMemsetD32Async` before `cuMemSetAccess` has granted the device access to that mapping (access is set afterwards, for the whole range)
//! expect: vmm_lifecycle=1

use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::{CudaContext, CudaStream, DriverError};

fn device_prop(ordinal: i32) -> sys::CUmemAllocationProp {
    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = ordinal;
    prop
}

fn rw_access(ordinal: i32) -> sys::CUmemAccessDesc {
    let mut desc: sys::CUmemAccessDesc = unsafe { std::mem::zeroed() };
    desc.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    desc.location.id = ordinal;
    desc.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    desc
}

pub struct GrowableArena {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    base: CUdeviceptr,
    reserved: usize,
    mapped: usize,
    chunk: usize,
    chunks: Vec<CUmemGenericAllocationHandle>,
}

impl GrowableArena {
    pub fn new(ctx: Arc<CudaContext>, max_bytes: usize) -> Result<Self, DriverError> {
        let stream = ctx.new_stream()?;
        let prop = device_prop(ctx.ordinal() as i32);
        let mut chunk = 0usize;
        let mut base: CUdeviceptr = 0;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut chunk, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED).result()?;
            let reserved = max_bytes.div_ceil(chunk) * chunk;
            sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0).result()?;
            Ok(Self { ctx, stream, base, reserved, mapped: 0, chunk, chunks: Vec::new() })
        }
    }

    pub fn base(&self) -> CUdeviceptr {
        self.base
    }

    /// Maps one more chunk at the end of the arena and zeroes it (empty hash buckets).
    pub fn grow(&mut self) -> Result<CUdeviceptr, DriverError> {
        if self.mapped + self.chunk > self.reserved {
            return Err(DriverError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY));
        }
        let ordinal = self.ctx.ordinal() as i32;
        let prop = device_prop(ordinal);
        let at = self.base + self.mapped as u64;
        let mut handle: CUmemGenericAllocationHandle = 0;
        unsafe {
            sys::cuMemCreate(&mut handle, self.chunk, &prop, 0).result()?;
            sys::cuMemMap(at, self.chunk, 0, handle, 0).result()?;
            sys::cuMemsetD32Async(at, 0xFFFF_FFFF, self.chunk / 4, self.stream.cu_stream()).result()?; // EXPECT: vmm_lifecycle
            let access = rw_access(ordinal);
            sys::cuMemSetAccess(self.base, self.mapped + self.chunk, &access, 1).result()?;
        }
        self.chunks.push(handle);
        self.mapped += self.chunk;
        Ok(at)
    }
}

impl Drop for GrowableArena {
    fn drop(&mut self) {
        unsafe {
            let _ = self.stream.synchronize();
            for (i, h) in self.chunks.drain(..).enumerate() {
                let _ = sys::cuMemUnmap(self.base + (i * self.chunk) as u64, self.chunk);
                let _ = sys::cuMemRelease(h);
            }
            let _ = sys::cuMemAddressFree(self.base, self.reserved);
        }
    }
}
