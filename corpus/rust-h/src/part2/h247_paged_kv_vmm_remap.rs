//! case: paged KV-cache of an LLM server that rotates a generation of cache pages through one VMM reservation; `rotate` maps the new generation's handle at `base` while the current generation is still mapped there, and `shutdown` frees the reservation with `cuMemAddressFree` before unmapping the live page
//! expect: vmm_lifecycle=2

use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::{CudaContext, CudaStream, DriverError};

pub struct PagedKvSpace {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    base: CUdeviceptr,
    reserved: usize,
    page_bytes: usize,
    current: CUmemGenericAllocationHandle,
    generation: u64,
}

fn page_prop(ordinal: i32) -> sys::CUmemAllocationProp {
    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = ordinal;
    prop
}

fn grant_rw(addr: CUdeviceptr, bytes: usize, ordinal: i32) -> Result<(), DriverError> {
    let mut desc: sys::CUmemAccessDesc = unsafe { std::mem::zeroed() };
    desc.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    desc.location.id = ordinal;
    desc.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    unsafe { sys::cuMemSetAccess(addr, bytes, &desc, 1).result() }
}

impl PagedKvSpace {
    pub fn new(ctx: Arc<CudaContext>, page_bytes: usize) -> Result<Self, DriverError> {
        let stream = ctx.new_stream()?;
        let ordinal = ctx.ordinal() as i32;
        let prop = page_prop(ordinal);
        let (mut base, mut current): (CUdeviceptr, CUmemGenericAllocationHandle) = (0, 0);
        let reserved = page_bytes * 2;
        unsafe {
            sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut current, page_bytes, &prop, 0).result()?;
            sys::cuMemMap(base, page_bytes, 0, current, 0).result()?;
        }
        grant_rw(base, page_bytes, ordinal)?;
        Ok(Self { ctx, stream, base, reserved, page_bytes, current, generation: 0 })
    }

    pub fn page(&self) -> CUdeviceptr {
        self.base
    }

    /// Starts a fresh cache generation: new physical page, same virtual address.
    pub fn rotate(&mut self) -> Result<u64, DriverError> {
        let ordinal = self.ctx.ordinal() as i32;
        let prop = page_prop(ordinal);
        let mut next: CUmemGenericAllocationHandle = 0;
        self.stream.synchronize()?;
        unsafe {
            sys::cuMemCreate(&mut next, self.page_bytes, &prop, 0).result()?;
            sys::cuMemMap(self.base, self.page_bytes, 0, next, 0).result()?; // EXPECT: vmm_lifecycle
            sys::cuMemRelease(self.current).result()?;
        }
        grant_rw(self.base, self.page_bytes, ordinal)?;
        self.current = next;
        self.generation += 1;
        Ok(self.generation)
    }

    pub fn shutdown(self) -> Result<(), DriverError> {
        self.stream.synchronize()?;
        unsafe {
            sys::cuMemAddressFree(self.base, self.reserved).result()?; // EXPECT: vmm_lifecycle
            sys::cuMemUnmap(self.base, self.page_bytes).result()?;
            sys::cuMemRelease(self.current).result()?;
        }
        Ok(())
    }
}
