use std::mem::MaybeUninit;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle, CUstream};
use cudarc::driver::{CudaContext, DriverError};

/// A reserved, mapped and read-write accessible device range.
pub struct VmmBuffer {
    ctx: Arc<CudaContext>,
    ptr: CUdeviceptr,
    size: usize,
    handle: CUmemGenericAllocationHandle,
    /// Stream whose work may still use the range.
    stream: CUstream,
}

fn prop_for(ordinal: i32) -> sys::CUmemAllocationProp {
    let mut prop: sys::CUmemAllocationProp = unsafe { MaybeUninit::zeroed().assume_init() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = ordinal;
    prop
}

fn grant_rw(ptr: CUdeviceptr, size: usize, location: sys::CUmemLocation) -> Result<(), DriverError> {
    let desc = sys::CUmemAccessDesc { location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    unsafe { sys::cuMemSetAccess(ptr, size, &desc, 1).result() }
}

/// Reserves, creates, maps and grants access to at least `bytes` bytes.
pub fn map_rw(ctx: &Arc<CudaContext>, bytes: usize, stream: CUstream) -> Result<VmmBuffer, DriverError> {
    ctx.bind_to_thread()?;
    let prop = prop_for(ctx.ordinal() as i32);
    let mut gran = 0usize;
    let (mut ptr, mut handle) = (0, 0);
    unsafe {
        sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
            .result()?;
    }
    let size = bytes.max(1).div_ceil(gran) * gran;
    unsafe {
        sys::cuMemAddressReserve(&mut ptr, size, 0, 0, 0).result()?;
        sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
        sys::cuMemMap(ptr, size, 0, handle, 0).result()?;
    }
    grant_rw(ptr, size, prop.location)?;
    Ok(VmmBuffer { ctx: ctx.clone(), ptr, size, handle, stream })
}

impl VmmBuffer {
    pub fn ptr(&self) -> CUdeviceptr {
        self.ptr
    }

    pub fn size(&self) -> usize {
        self.size
    }
}

impl Drop for VmmBuffer {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemUnmap(self.ptr, self.size);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.ptr, self.size);
        }
    }
}
