// device_memory_leak through the raw driver API: cudarc's `driver::sys` bindings and a crate's
// own `extern "C"` block (cuMemAlloc_v2, cuMemAllocHost_v2, cuMemAllocManaged, cuMemFree_v2,
// cuMemFreeHost), results checked by hand against CUDA_SUCCESS or with `.result()?`.
// Fires: never freed, lost on a `return Err` after a failed copy, pinned or managed memory
// never freed, a second cuMemAlloc into the same variable, an allocation per loop round.
// Near misses: the branch where cuMemAlloc failed, freed on every path, the matching free of
// each kind, handed to a non-CUDA `extern "C"` function, `process::exit` after an error.
use std::ffi::{c_int, c_void};

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUdeviceptr, CUmemAttach_flags, CUresult};

const N: usize = 1024;
const BYTES: usize = N * 4;
const ROUNDS: usize = 8;

// The crate's own bindings, as a -sys crate declares them.
mod cu {
    use std::ffi::{c_int, c_void};

    #[link(name = "cuda")]
    unsafe extern "C" {
        pub fn cuMemAlloc_v2(dptr: *mut u64, bytesize: usize) -> c_int;
        pub fn cuMemAllocHost_v2(pp: *mut *mut c_void, bytesize: usize) -> c_int;
        pub fn cuMemFree_v2(dptr: u64) -> c_int;
        pub fn cuMemFreeHost(p: *mut c_void) -> c_int;
        pub fn cuMemsetD8_v2(dst: u64, uc: u8, n: usize) -> c_int;
    }
}

// Not CUDA: a logging/registry library whose body is not in the crate.
unsafe extern "C" {
    fn telemetry_register_buffer(dptr: u64, bytes: usize) -> c_int;
}

fn fires_sys_alloc_never_freed() -> Result<(), DriverError> {
    let mut d: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) }.result()?;
    //~^ device_memory_leak
    unsafe { sys::cuMemsetD8_v2(d, 0, BYTES) }.result()?;
    Ok(())
}

fn fires_return_err_after_failed_copy() -> Result<(), DriverError> {
    let host = [1.0f32; N];
    let mut d: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) }.result()?;
    //~^ device_memory_leak
    let rc = unsafe { sys::cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, BYTES) };
    if rc != CUresult::CUDA_SUCCESS {
        // d is still allocated here.
        return Err(DriverError(rc));
    }
    unsafe { sys::cuMemFree_v2(d) }.result()
}

fn fires_pinned_host_never_freed() -> Result<(), DriverError> {
    let mut h: *mut c_void = std::ptr::null_mut();
    unsafe { sys::cuMemAllocHost_v2(&mut h, BYTES) }.result()?;
    //~^ device_memory_leak
    let staging = h as *mut f32;
    unsafe { *staging = 1.0 };
    Ok(())
}

fn fires_managed_allocated_each_round() -> Result<(), DriverError> {
    let mut m: CUdeviceptr = 0;
    for _ in 0..ROUNDS {
        unsafe { sys::cuMemAllocManaged(&mut m, BYTES, CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32) }.result()?;
        //~^ device_memory_leak
        unsafe { sys::cuMemsetD8_v2(m, 0, BYTES) }.result()?;
    }
    Ok(())
}

fn fires_own_extern_second_alloc_into_same_var() -> Result<(), c_int> {
    let mut d: u64 = 0;
    let rc = unsafe { cu::cuMemAlloc_v2(&mut d, BYTES) };
    //~^ device_memory_leak
    if rc != 0 {
        return Err(rc);
    }
    let _ = unsafe { cu::cuMemsetD8_v2(d, 0, BYTES) };
    // Reallocated over the only pointer to the first buffer.
    let rc = unsafe { cu::cuMemAlloc_v2(&mut d, 2 * BYTES) };
    if rc != 0 {
        return Err(rc);
    }
    let _ = unsafe { cu::cuMemsetD8_v2(d, 0, 2 * BYTES) };
    let rc = unsafe { cu::cuMemFree_v2(d) };
    if rc != 0 { Err(rc) } else { Ok(()) }
}

fn fires_own_extern_pinned_lost_on_early_return(fill: u8) -> Result<(), c_int> {
    let mut h: *mut c_void = std::ptr::null_mut();
    let rc = unsafe { cu::cuMemAllocHost_v2(&mut h, BYTES) };
    //~^ device_memory_leak
    if rc != 0 {
        return Err(rc);
    }
    if fill == 0 {
        // Nothing to stage: returns without cuMemFreeHost.
        return Ok(());
    }
    let staging = h as *mut u8;
    unsafe { *staging = fill };
    let rc = unsafe { cu::cuMemFreeHost(h) };
    if rc != 0 { Err(rc) } else { Ok(()) }
}

fn ok_failed_alloc_branch_has_nothing_to_free() -> Result<(), DriverError> {
    let mut d: CUdeviceptr = 0;
    let rc = unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) };
    if rc != CUresult::CUDA_SUCCESS {
        return Err(DriverError(rc));
    }
    let r = unsafe { sys::cuMemsetD8_v2(d, 0, BYTES) }.result();
    unsafe { sys::cuMemFree_v2(d) }.result()?;
    r
}

fn ok_freed_on_every_path() -> Result<(), DriverError> {
    let host = [1.0f32; N];
    let mut d: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) }.result()?;
    let rc = unsafe { sys::cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, BYTES) };
    if rc != CUresult::CUDA_SUCCESS {
        unsafe { sys::cuMemFree_v2(d) };
        return Err(DriverError(rc));
    }
    unsafe { sys::cuMemFree_v2(d) }.result()
}

fn ok_pinned_freed_with_cumemfreehost() -> Result<(), DriverError> {
    let mut h: *mut c_void = std::ptr::null_mut();
    unsafe { sys::cuMemAllocHost_v2(&mut h, BYTES) }.result()?;
    let staging = h as *mut f32;
    unsafe { *staging = 1.0 };
    unsafe { sys::cuMemFreeHost(h) }.result()
}

fn ok_managed_freed_each_round() -> Result<(), DriverError> {
    for _ in 0..ROUNDS {
        let mut m: CUdeviceptr = 0;
        unsafe { sys::cuMemAllocManaged(&mut m, BYTES, CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32) }.result()?;
        let r = unsafe { sys::cuMemsetD8_v2(m, 0, BYTES) }.result();
        unsafe { sys::cuMemFree_v2(m) }.result()?;
        r?;
    }
    Ok(())
}

fn ok_handed_to_non_cuda_extern() -> Result<(), DriverError> {
    let mut d: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) }.result()?;
    // The library keeps the pointer; its body is not visible.
    unsafe { telemetry_register_buffer(d, BYTES) };
    Ok(())
}

fn ok_own_extern_freed() -> Result<(), c_int> {
    let mut d: u64 = 0;
    let rc = unsafe { cu::cuMemAlloc_v2(&mut d, BYTES) };
    if rc != 0 {
        return Err(rc);
    }
    let set = unsafe { cu::cuMemsetD8_v2(d, 0, BYTES) };
    let freed = unsafe { cu::cuMemFree_v2(d) };
    if set != 0 {
        return Err(set);
    }
    if freed != 0 { Err(freed) } else { Ok(()) }
}

fn ok_process_exits_after_error() {
    let host = [1.0f32; N];
    let mut d: CUdeviceptr = 0;
    if unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) } != CUresult::CUDA_SUCCESS {
        std::process::exit(1);
    }
    if unsafe { sys::cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, BYTES) } != CUresult::CUDA_SUCCESS {
        // The process ends on purpose; the driver reclaims the memory.
        std::process::exit(1);
    }
    unsafe { sys::cuMemFree_v2(d) };
}

fn ok_own_extern_pinned_freed_on_early_return(fill: u8) -> Result<(), c_int> {
    let mut h: *mut c_void = std::ptr::null_mut();
    let rc = unsafe { cu::cuMemAllocHost_v2(&mut h, BYTES) };
    if rc != 0 {
        return Err(rc);
    }
    if fill == 0 {
        unsafe { cu::cuMemFreeHost(h) };
        return Ok(());
    }
    let staging = h as *mut u8;
    unsafe { *staging = fill };
    let rc = unsafe { cu::cuMemFreeHost(h) };
    if rc != 0 { Err(rc) } else { Ok(()) }
}

fn main() {}
