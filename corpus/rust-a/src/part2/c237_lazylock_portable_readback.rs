//! case: a process-wide LazyLock<Mutex<..>> readback buffer from cuMemHostAlloc(CU_MEMHOSTALLOC_PORTABLE), not write-combined, read by the host after a synchronous copy
//! expect: none
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::{LazyLock, Mutex};

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, DriverError};

struct Readback {
    ptr: *mut u32,
    len: usize,
}

// SAFETY: guarded by the mutex below.
unsafe impl Send for Readback {}

static READBACK: LazyLock<Mutex<Option<Readback>>> = LazyLock::new(|| Mutex::new(None));

fn ensure(len: usize) -> Result<(), DriverError> {
    let mut slot = READBACK.lock().unwrap();
    if slot.as_ref().is_some_and(|r| r.len >= len) {
        return Ok(());
    }
    if let Some(old) = slot.take() {
        unsafe { sys::cuMemFreeHost(old.ptr as *mut c_void) }.result()?;
    }
    let mut p: *mut c_void = null_mut();
    unsafe { sys::cuMemHostAlloc(&mut p, len * 4, sys::CU_MEMHOSTALLOC_PORTABLE) }.result()?;
    *slot = Some(Readback { ptr: p as *mut u32, len });
    Ok(())
}

pub fn count_nonzero(dev: CUdeviceptr, len: usize) -> Result<usize, DriverError> {
    ensure(len)?;
    let slot = READBACK.lock().unwrap();
    let rb = slot.as_ref().expect("allocated above");
    unsafe { sys::cuMemcpyDtoH_v2(rb.ptr as *mut c_void, dev, len * 4) }.result()?;
    let values = unsafe { std::slice::from_raw_parts(rb.ptr, len) };
    Ok(values.iter().filter(|&&v| v != 0).count())
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let len = 1 << 12;
    let mut dev: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut dev, len * 4) }.result()?;
    unsafe { sys::cuMemsetD32_v2(dev, 1, len) }.result()?;
    println!("{} nonzero", count_nonzero(dev, len)?);
    unsafe { sys::cuMemFree_v2(dev) }.result()?;
    Ok(())
}
