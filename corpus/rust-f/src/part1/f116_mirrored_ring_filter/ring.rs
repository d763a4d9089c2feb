use std::mem::MaybeUninit;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::{CudaContext, DriverError};

/// One physical allocation of `size` bytes mapped at `base` and again at `base + size`, so that
/// any window of up to `size` bytes starting inside the first view is contiguous.
pub struct MirroredRing {
    ctx: Arc<CudaContext>,
    base: CUdeviceptr,
    size: usize,
    handle: CUmemGenericAllocationHandle,
}

fn device_prop(ordinal: i32) -> sys::CUmemAllocationProp {
    let mut prop: sys::CUmemAllocationProp = unsafe { MaybeUninit::zeroed().assume_init() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = ordinal;
    prop
}

impl MirroredRing {
    pub fn new(ctx: &Arc<CudaContext>, min_bytes: usize) -> Result<Self, DriverError> {
        ctx.bind_to_thread()?;
        let ordinal = ctx.ordinal() as i32;
        let prop = device_prop(ordinal);
        let mut gran = 0usize;
        unsafe {
            sys::cuMemGetAllocationGranularity(
                &mut gran,
                &prop,
                sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM,
            )
            .result()?;
        }
        let size = min_bytes.div_ceil(gran) * gran;
        let mut handle: CUmemGenericAllocationHandle = 0;
        let mut base: CUdeviceptr = 0;
        let access = sys::CUmemAccessDesc {
            location: prop.location,
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        unsafe {
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0).result()?;
            sys::cuMemMap(base, size, 0, handle, 0).result()?;
            sys::cuMemMap(base + size as u64, size, 0, handle, 0).result()?;
            sys::cuMemSetAccess(base, size, &access, 1).result()?;
            sys::cuMemSetAccess(base + size as u64, size, &access, 1).result()?;
        }
        Ok(Self { ctx: ctx.clone(), base, size, handle })
    }

    /// The first view.
    pub fn head(&self) -> CUdeviceptr {
        self.base
    }

    /// The second view of the same bytes.
    pub fn mirror(&self) -> CUdeviceptr {
        self.base + self.size as u64
    }

    pub fn len<T>(&self) -> usize {
        self.size / std::mem::size_of::<T>()
    }
}

impl Drop for MirroredRing {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemUnmap(self.base, self.size);
            let _ = sys::cuMemUnmap(self.base + self.size as u64, self.size);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, 2 * self.size);
        }
    }
}
