//! case: a HashMap of VMM regions; each handle is released right after mapping (allowed), and Drop unmaps before freeing the range
//! expect: none
use std::collections::HashMap;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, DriverError};

pub struct Region {
    va: CUdeviceptr,
    bytes: usize,
}

impl Region {
    pub fn new(device: i32, bytes: usize) -> Result<Region, DriverError> {
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        let (mut va, mut handle) = (0, 0);
        unsafe {
            sys::cuMemAddressReserve(&mut va, bytes, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
            sys::cuMemMap(va, bytes, 0, handle, 0).result()?;
            // the mapping keeps the memory alive: the handle is not needed any more
            sys::cuMemRelease(handle).result()?;
            let desc = sys::CUmemAccessDesc { location: prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
            sys::cuMemSetAccess(va, bytes, &desc, 1).result()?;
        }
        Ok(Region { va, bytes })
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemUnmap(self.va, self.bytes);
            let _ = sys::cuMemAddressFree(self.va, self.bytes);
        }
    }
}

pub struct RegionTable {
    regions: HashMap<&'static str, Region>,
}

impl RegionTable {
    pub fn build(device: i32, layout: &[(&'static str, usize)]) -> Result<Self, DriverError> {
        let mut regions = HashMap::new();
        for &(name, bytes) in layout {
            regions.insert(name, Region::new(device, bytes)?);
        }
        Ok(RegionTable { regions })
    }

    pub fn clear(&self, name: &str) -> Result<(), DriverError> {
        let r = &self.regions[name];
        unsafe { sys::cuMemsetD8_v2(r.va, 0, r.bytes) }.result()
    }

    pub fn evict(&mut self, name: &str) {
        self.regions.remove(name); // Region::drop unmaps then frees the range
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let mut table = RegionTable::build(ctx.cu_device(), &[("weights", 64 << 20), ("scratch", 8 << 20)])?;
    table.clear("scratch")?;
    table.evict("scratch");
    table.clear("weights")?;
    Ok(())
}
