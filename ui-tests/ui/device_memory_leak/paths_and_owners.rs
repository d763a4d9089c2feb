// device_memory_leak across the allocation families (cudarc's result layer, driver sys,
// runtime sys): the paths that lose memory and the owners that take it.
// Fires: a `return Err` after a validation, two buffers lost on one `?`, a helper's
// allocation dropped by the case, a helper called every round, a second allocation of another
// family into the same variable, a `?` before the Drop owner is built, an early return before
// the pointer reaches the caller's Vec.
// Near misses: freed before the early return, a struct whose Drop frees (built before the
// fallible step), an out-parameter, a Vec the caller keeps, a helper that frees, a static,
// the owner returned.
use std::ffi::c_void;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys::{cudaFree, cudaFreeHost, cudaMalloc, cudaMallocHost, cudaMemset};

const N: usize = 1024;
const BYTES: usize = N * 4;
const ROUNDS: usize = 8;

#[derive(Debug)]
pub enum AppError {
    Driver(DriverError),
    Runtime(RuntimeError),
    TooLarge(usize),
}

impl From<DriverError> for AppError {
    fn from(e: DriverError) -> Self {
        AppError::Driver(e)
    }
}

impl From<RuntimeError> for AppError {
    fn from(e: RuntimeError) -> Self {
        AppError::Runtime(e)
    }
}

/// Owns a device allocation and frees it on drop.
pub struct DeviceBuffer {
    ptr: CUdeviceptr,
    bytes: usize,
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        let _ = unsafe { result::free_sync(self.ptr) };
    }
}

static mut SCRATCH: CUdeviceptr = 0;

// Helpers (not cases): allocate and hand the pointer back, or free it.
fn device_scratch(bytes: usize) -> Result<CUdeviceptr, DriverError> {
    unsafe { result::malloc_sync(bytes) }
}

fn pinned_staging(bytes: usize) -> Result<*mut c_void, RuntimeError> {
    let mut h: *mut c_void = std::ptr::null_mut();
    unsafe { cudaMallocHost(&mut h, bytes) }.result()?;
    Ok(h)
}

fn release(d: CUdeviceptr) -> Result<(), DriverError> {
    unsafe { result::free_sync(d) }
}

fn fires_return_err_after_validation(n: usize) -> Result<(), AppError> {
    let mut d: *mut c_void = std::ptr::null_mut();
    unsafe { cudaMalloc(&mut d, BYTES) }.result()?;
    //~^ device_memory_leak
    if n > N {
        return Err(AppError::TooLarge(n));
    }
    let r = unsafe { cudaMemset(d, 0, n * 4) }.result();
    unsafe { cudaFree(d) }.result()?;
    Ok(r?)
}

fn fires_two_buffers_lost_on_question_mark() -> Result<(), AppError> {
    let d_in = unsafe { result::malloc_sync(BYTES) }?;
    //~^ device_memory_leak
    let mut d_out: *mut c_void = std::ptr::null_mut();
    unsafe { cudaMalloc(&mut d_out, BYTES) }.result()?;
    //~^ device_memory_leak
    // Both buffers are still allocated when this `?` returns.
    unsafe { cudaMemset(d_out, 0, BYTES) }.result()?;
    unsafe { sys::cuMemFree_v2(d_in) };
    unsafe { cudaFree(d_out) }.result()?;
    Ok(())
}

fn fires_helper_allocation_dropped() -> Result<(), DriverError> {
    let d = device_scratch(BYTES)?;
    //~^ device_memory_leak
    unsafe { sys::cuMemsetD8_v2(d, 0, BYTES) }.result()
}

// Known miss: the helper's allocation reaches `h` through the `Ok` of its result, and a value in
// an enum's payload is taken as held (the call may have returned the variant that holds
// nothing); see LINTS.md, Known problems.
fn known_miss_helper_called_every_round() -> Result<(), RuntimeError> {
    for round in 0..ROUNDS {
        let h = pinned_staging(BYTES)?;
        let staging = h as *mut f32;
        unsafe { *staging = round as f32 };
    }
    Ok(())
}

fn fires_second_allocation_of_another_family() -> Result<(), DriverError> {
    let mut d = unsafe { result::malloc_sync(BYTES) }?;
    //~^ device_memory_leak
    unsafe { sys::cuMemsetD8_v2(d, 0, BYTES) }.result()?;
    // The raw binding writes a new allocation over the only pointer to the first.
    unsafe { sys::cuMemAlloc_v2(&mut d, 2 * BYTES) }.result()?;
    unsafe { sys::cuMemFree_v2(d) }.result()
}

fn fires_question_mark_before_owner_is_built() -> Result<DeviceBuffer, DriverError> {
    let d = unsafe { result::malloc_sync(BYTES) }?;
    //~^ device_memory_leak
    // Returns before `DeviceBuffer` owns `d`.
    unsafe { sys::cuMemsetD8_v2(d, 0, BYTES) }.result()?;
    Ok(DeviceBuffer { ptr: d, bytes: BYTES })
}

fn fires_early_return_before_push(pool: &mut Vec<CUdeviceptr>, rounds: usize) -> Result<(), DriverError> {
    let d = unsafe { result::malloc_sync(BYTES) }?;
    //~^ device_memory_leak
    if rounds == 0 {
        return Ok(());
    }
    pool.push(d);
    Ok(())
}

fn ok_freed_before_validation_return(n: usize) -> Result<(), AppError> {
    let mut d: *mut c_void = std::ptr::null_mut();
    unsafe { cudaMalloc(&mut d, BYTES) }.result()?;
    if n > N {
        unsafe { cudaFree(d) };
        return Err(AppError::TooLarge(n));
    }
    let r = unsafe { cudaMemset(d, 0, n * 4) }.result();
    unsafe { cudaFree(d) }.result()?;
    Ok(r?)
}

fn ok_owner_built_before_fallible_step() -> Result<DeviceBuffer, DriverError> {
    let d = unsafe { result::malloc_sync(BYTES) }?;
    let buf = DeviceBuffer { ptr: d, bytes: BYTES };
    // On this `?` the owner is dropped, and its Drop frees `d`.
    unsafe { sys::cuMemsetD8_v2(buf.ptr, 0, buf.bytes) }.result()?;
    Ok(buf)
}

fn ok_drop_owner_dropped_at_end() -> Result<(), DriverError> {
    let mut d: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) }.result()?;
    let buf = DeviceBuffer { ptr: d, bytes: BYTES };
    unsafe { sys::cuMemsetD8_v2(buf.ptr, 0, buf.bytes) }.result()?;
    Ok(())
}

fn ok_out_parameter(out: &mut CUdeviceptr) -> Result<(), DriverError> {
    let d = unsafe { result::malloc_sync(BYTES) }?;
    *out = d;
    Ok(())
}

fn ok_vec_the_caller_keeps(pool: &mut Vec<CUdeviceptr>) -> Result<(), DriverError> {
    for _ in 0..ROUNDS {
        let d = unsafe { result::malloc_sync(BYTES) }?;
        pool.push(d);
    }
    Ok(())
}

fn ok_helper_allocation_released_by_helper() -> Result<(), DriverError> {
    let d = device_scratch(BYTES)?;
    let r = unsafe { sys::cuMemsetD8_v2(d, 0, BYTES) }.result();
    release(d)?;
    r
}

fn ok_helper_staging_freed_every_round() -> Result<(), RuntimeError> {
    for round in 0..ROUNDS {
        let h = pinned_staging(BYTES)?;
        let staging = h as *mut f32;
        unsafe { *staging = round as f32 };
        unsafe { cudaFreeHost(h) }.result()?;
    }
    Ok(())
}

fn ok_stored_in_static() -> Result<(), DriverError> {
    let d = unsafe { result::malloc_sync(BYTES) }?;
    unsafe { SCRATCH = d };
    Ok(())
}

fn ok_early_return_frees_before_push(pool: &mut Vec<CUdeviceptr>, rounds: usize) -> Result<(), DriverError> {
    let d = unsafe { result::malloc_sync(BYTES) }?;
    if rounds == 0 {
        return release(d);
    }
    pool.push(d);
    Ok(())
}

fn main() {}
