//! case: own extern "C" cudaMalloc: when the second allocation fails, the function returns the error code without freeing the first allocation
//! expect: device_memory_leak=1

use std::ffi::c_void;
use std::mem::size_of;

#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> i32;
    fn cudaMemset(dev_ptr: *mut c_void, value: i32, count: usize) -> i32;
    fn cudaFree(dev_ptr: *mut c_void) -> i32;
}

const NODES: usize = 100_000;
const EDGES: usize = 1_000_000;

pub struct DeviceGraph {
    pub offsets: *mut c_void,
    pub targets: *mut c_void,
}

pub fn alloc_graph() -> Result<DeviceGraph, i32> {
    let mut offsets: *mut c_void = std::ptr::null_mut();
    let mut targets: *mut c_void = std::ptr::null_mut();
    let rc = unsafe { cudaMalloc(&mut offsets, (NODES + 1) * size_of::<u32>()) }; // EXPECT: device_memory_leak
    if rc != 0 {
        return Err(rc);
    }
    let rc = unsafe { cudaMalloc(&mut targets, EDGES * size_of::<u32>()) };
    if rc != 0 {
        return Err(rc);
    }
    unsafe {
        cudaMemset(offsets, 0, (NODES + 1) * size_of::<u32>());
        cudaMemset(targets, 0, EDGES * size_of::<u32>());
    }
    Ok(DeviceGraph { offsets, targets })
}

impl Drop for DeviceGraph {
    fn drop(&mut self) {
        unsafe {
            cudaFree(self.targets);
            cudaFree(self.offsets);
        }
    }
}
