//! case: slab arena of a GPU cache server on the VMM driver API in the documented order: reserve, create, map, `cuMemSetAccess` on the new slab before its memset, and on teardown synchronize, unmap every slab, release the handles, then free the reservation
//! expect: none

use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::{CudaContext, CudaStream, DriverError};

struct Slab {
    addr: CUdeviceptr,
    handle: CUmemGenericAllocationHandle,
}

pub struct SlabArena {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    va: CUdeviceptr,
    va_bytes: usize,
    slab_bytes: usize,
    slabs: Vec<Slab>,
}

impl SlabArena {
    fn prop(&self) -> sys::CUmemAllocationProp {
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = self.ctx.ordinal() as i32;
        prop
    }

    pub fn with_capacity(ctx: Arc<CudaContext>, slab_bytes: usize, max_slabs: usize) -> Result<Self, DriverError> {
        let stream = ctx.new_stream()?;
        let va_bytes = slab_bytes * max_slabs;
        let mut va: CUdeviceptr = 0;
        unsafe { sys::cuMemAddressReserve(&mut va, va_bytes, 0, 0, 0).result()? };
        Ok(Self { ctx, stream, va, va_bytes, slab_bytes, slabs: Vec::new() })
    }

    pub fn add_slab(&mut self) -> Result<CUdeviceptr, DriverError> {
        let addr = self.va + (self.slabs.len() * self.slab_bytes) as u64;
        let prop = self.prop();
        let mut access: sys::CUmemAccessDesc = unsafe { std::mem::zeroed() };
        access.location = prop.location;
        access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        let mut handle: CUmemGenericAllocationHandle = 0;
        unsafe {
            sys::cuMemCreate(&mut handle, self.slab_bytes, &prop, 0).result()?;
            if let Err(e) = sys::cuMemMap(addr, self.slab_bytes, 0, handle, 0).result() {
                let _ = sys::cuMemRelease(handle);
                return Err(e);
            }
            sys::cuMemSetAccess(addr, self.slab_bytes, &access, 1).result()?;
            sys::cuMemsetD8Async(addr, 0, self.slab_bytes, self.stream.cu_stream()).result()?;
        }
        self.slabs.push(Slab { addr, handle });
        Ok(addr)
    }

    pub fn slabs(&self) -> impl Iterator<Item = CUdeviceptr> + '_ {
        self.slabs.iter().map(|s| s.addr)
    }
}

impl Drop for SlabArena {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            for slab in self.slabs.drain(..).rev() {
                let _ = sys::cuMemUnmap(slab.addr, self.slab_bytes);
                let _ = sys::cuMemRelease(slab.handle);
            }
            let _ = sys::cuMemAddressFree(self.va, self.va_bytes);
        }
    }
}
