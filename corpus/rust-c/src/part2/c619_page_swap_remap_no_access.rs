//! case: a paged weight store swaps the physical page behind a virtual page (cuMemUnmap, then cuMemMap of a new handle at the same address) and copies the new contents in, but only grants access when pages are first mapped in `new`, not after the remap
//! expect: vmm_lifecycle=1

use std::mem::zeroed;
use std::ptr::null_mut;

use cudarc::driver::{sys, DriverError};

pub struct PagedStore {
    base: sys::CUdeviceptr,
    page: usize,
    pages: Vec<sys::CUmemGenericAllocationHandle>,
    prop: sys::CUmemAllocationProp,
    stream: sys::CUstream,
}

impl PagedStore {
    fn access(&self) -> sys::CUmemAccessDesc {
        sys::CUmemAccessDesc {
            location: self.prop.location,
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        }
    }

    pub fn new(device: i32, page: usize, count: usize) -> Result<Self, DriverError> {
        let mut prop: sys::CUmemAllocationProp = unsafe { zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        let mut store = PagedStore { base: 0, page, pages: Vec::with_capacity(count), prop, stream: null_mut() };
        let access = store.access();
        unsafe {
            sys::cuStreamCreate(&mut store.stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAddressReserve(&mut store.base, page * count, page, 0, 0).result()?;
            for i in 0..count {
                let at = store.base + (i * page) as u64;
                let mut h = 0;
                sys::cuMemCreate(&mut h, page, &store.prop, 0).result()?;
                sys::cuMemMap(at, page, 0, h, 0).result()?;
                sys::cuMemSetAccess(at, page, &access, 1).result()?;
                store.pages.push(h);
            }
        }
        Ok(store)
    }

    /// Replaces virtual page `i` with a fresh physical page holding a copy of `src` (device memory),
    /// so the old physical page can be handed to another store.
    pub fn swap_in(&mut self, i: usize, src: sys::CUdeviceptr) -> Result<sys::CUmemGenericAllocationHandle, DriverError> {
        let at = self.base + (i * self.page) as u64;
        let mut fresh = 0;
        unsafe {
            sys::cuStreamSynchronize(self.stream).result()?;
            sys::cuMemCreate(&mut fresh, self.page, &self.prop, 0).result()?;
            sys::cuMemUnmap(at, self.page).result()?;
            sys::cuMemMap(at, self.page, 0, fresh, 0).result()?;
            // Same virtual address as before, so the old access rights are assumed to carry over.
            sys::cuMemcpyDtoDAsync_v2(at, src, self.page, self.stream).result()?; // EXPECT: vmm_lifecycle
            sys::cuStreamSynchronize(self.stream).result()?;
        }
        Ok(std::mem::replace(&mut self.pages[i], fresh))
    }
}

impl Drop for PagedStore {
    fn drop(&mut self) {
        let total = self.page * self.pages.len();
        unsafe {
            sys::cuStreamSynchronize(self.stream);
            sys::cuMemUnmap(self.base, total);
            for h in self.pages.drain(..) {
                sys::cuMemRelease(h);
            }
            sys::cuMemAddressFree(self.base, total);
            sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
