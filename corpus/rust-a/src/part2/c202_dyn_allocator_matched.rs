//! case: Box<dyn Allocator> with a pinned and a device implementation, each freeing with its own function
//! expect: none
use std::collections::HashMap;
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys;
use cudarc::driver::{CudaContext, DriverError};

pub trait Allocator: Send {
    fn name(&self) -> &'static str;
    fn alloc(&mut self, bytes: usize) -> Result<u64, DriverError>;
    fn free(&mut self, handle: u64) -> Result<(), DriverError>;
}

struct PinnedAllocator {
    live: usize,
}

impl Allocator for PinnedAllocator {
    fn name(&self) -> &'static str {
        "pinned"
    }
    fn alloc(&mut self, bytes: usize) -> Result<u64, DriverError> {
        let mut p: *mut c_void = null_mut();
        unsafe { sys::cuMemHostAlloc(&mut p, bytes, sys::CU_MEMHOSTALLOC_PORTABLE) }.result()?;
        self.live += 1;
        Ok(p as u64)
    }
    fn free(&mut self, handle: u64) -> Result<(), DriverError> {
        self.live -= 1;
        unsafe { sys::cuMemFreeHost(handle as *mut c_void) }.result()
    }
}

struct DeviceAllocator;

impl Allocator for DeviceAllocator {
    fn name(&self) -> &'static str {
        "device"
    }
    fn alloc(&mut self, bytes: usize) -> Result<u64, DriverError> {
        let mut d: sys::CUdeviceptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut d, bytes) }.result()?;
        Ok(d)
    }
    fn free(&mut self, handle: u64) -> Result<(), DriverError> {
        unsafe { sys::cuMemFree_v2(handle) }.result()
    }
}

fn make_allocators() -> Vec<Box<dyn Allocator>> {
    vec![Box::new(PinnedAllocator { live: 0 }), Box::new(DeviceAllocator)]
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut allocators = make_allocators();
    let mut owned: HashMap<&'static str, Vec<u64>> = HashMap::new();
    for a in allocators.iter_mut() {
        let handles = (0..4).map(|i| a.alloc(4096 << i)).collect::<Result<Vec<_>, _>>()?;
        owned.insert(a.name(), handles);
    }
    // Give every handle back to the allocator that produced it.
    for a in allocators.iter_mut() {
        if let Some(handles) = owned.remove(a.name()) {
            for h in handles {
                a.free(h)?;
            }
        }
    }
    Ok(())
}
