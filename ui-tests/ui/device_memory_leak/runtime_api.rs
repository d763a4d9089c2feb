// device_memory_leak through the CUDA runtime API as cudarc's `runtime::sys` binds it:
// cudaMalloc, cudaMallocHost, cudaHostAlloc, cudaMallocManaged, released by cudaFree and
// cudaFreeHost; results checked against cudaSuccess or with `.result()?`.
// Fires: never freed, lost on `return Err` after a failed cudaMemcpy, lost on a `?`, pinned
// memory of both kinds never freed, managed memory allocated every round, a second cudaMalloc
// into the same variable.
// Near misses: `cudaMalloc(..).result()?` (a failed allocation has nothing to free), freed
// before each early return, the matching free for each kind, stored in a struct field or
// returned to the caller, freed and made again per round.
use std::ffi::c_void;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys::{
    cudaError_t, cudaFree, cudaFreeHost, cudaHostAlloc, cudaHostAllocDefault, cudaMalloc,
    cudaMallocHost, cudaMallocManaged, cudaMemAttachGlobal, cudaMemcpy, cudaMemcpyKind,
    cudaMemset,
};

const N: usize = 1024;
const BYTES: usize = N * 4;
const ROUNDS: usize = 8;

pub struct Workspace {
    pub managed: *mut c_void,
}

fn fires_cudamalloc_never_freed() -> Result<(), RuntimeError> {
    let mut d: *mut c_void = std::ptr::null_mut();
    unsafe { cudaMalloc(&mut d, BYTES) }.result()?;
    //~^ device_memory_leak
    unsafe { cudaMemset(d, 0, BYTES) }.result()?;
    Ok(())
}

fn fires_return_err_after_failed_memcpy() -> Result<(), RuntimeError> {
    let host = [1.0f32; N];
    let mut d: *mut c_void = std::ptr::null_mut();
    unsafe { cudaMalloc(&mut d, BYTES) }.result()?;
    //~^ device_memory_leak
    let rc = unsafe { cudaMemcpy(d, host.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice) };
    if rc != cudaError_t::cudaSuccess {
        return Err(RuntimeError(rc));
    }
    unsafe { cudaFree(d) }.result()
}

fn fires_lost_on_question_mark() -> Result<(), RuntimeError> {
    let host = [1.0f32; N];
    let mut d: *mut c_void = std::ptr::null_mut();
    unsafe { cudaMalloc(&mut d, BYTES) }.result()?;
    //~^ device_memory_leak
    unsafe { cudaMemcpy(d, host.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice) }.result()?;
    unsafe { cudaFree(d) }.result()
}

fn fires_cudamallochost_never_freed() -> Result<(), RuntimeError> {
    let mut h: *mut c_void = std::ptr::null_mut();
    unsafe { cudaMallocHost(&mut h, BYTES) }.result()?;
    //~^ device_memory_leak
    let staging = h as *mut f32;
    unsafe { *staging = 1.0 };
    Ok(())
}

fn fires_cudahostalloc_never_freed() -> Result<(), RuntimeError> {
    let mut h: *mut c_void = std::ptr::null_mut();
    unsafe { cudaHostAlloc(&mut h, BYTES, cudaHostAllocDefault) }.result()?;
    //~^ device_memory_leak
    let staging = h as *mut f32;
    unsafe { *staging = 2.0 };
    Ok(())
}

fn fires_managed_allocated_every_round() -> Result<(), RuntimeError> {
    for _ in 0..ROUNDS {
        let mut m: *mut c_void = std::ptr::null_mut();
        unsafe { cudaMallocManaged(&mut m, BYTES, cudaMemAttachGlobal) }.result()?;
        //~^ device_memory_leak
        unsafe { cudaMemset(m, 0, BYTES) }.result()?;
    }
    Ok(())
}

fn fires_second_cudamalloc_into_same_var() -> Result<(), RuntimeError> {
    let mut d: *mut c_void = std::ptr::null_mut();
    unsafe { cudaMalloc(&mut d, BYTES) }.result()?;
    //~^ device_memory_leak
    unsafe { cudaMemset(d, 0, BYTES) }.result()?;
    // Resized: the first buffer's only pointer is overwritten.
    unsafe { cudaMalloc(&mut d, 2 * BYTES) }.result()?;
    let r = unsafe { cudaMemset(d, 0, 2 * BYTES) }.result();
    unsafe { cudaFree(d) }.result()?;
    r
}

fn ok_cudamalloc_freed() -> Result<(), RuntimeError> {
    let mut d: *mut c_void = std::ptr::null_mut();
    // A failed cudaMalloc returns through `?` with nothing to free.
    unsafe { cudaMalloc(&mut d, BYTES) }.result()?;
    let r = unsafe { cudaMemset(d, 0, BYTES) }.result();
    unsafe { cudaFree(d) }.result()?;
    r
}

// Added in the twelfth session (rust-mpi19c r410): each element of an array allocated in a
// loop over it, all freed after; one element's allocation is not stored over another's.
fn ok_allocated_per_element_of_an_array() -> Result<(), RuntimeError> {
    let mut raw: [*mut c_void; 2] = [std::ptr::null_mut(); 2];
    for slot in raw.iter_mut() {
        let e = unsafe { cudaMalloc(slot, BYTES) };
        assert_eq!(e, cudaError_t::cudaSuccess);
    }
    let r = unsafe { cudaMemset(raw[0], 0, BYTES) }.result();
    for p in raw {
        unsafe { cudaFree(p) }.result()?;
    }
    r
}

fn ok_freed_before_return_err() -> Result<(), RuntimeError> {
    let host = [1.0f32; N];
    let mut d: *mut c_void = std::ptr::null_mut();
    let rc = unsafe { cudaMalloc(&mut d, BYTES) };
    if rc != cudaError_t::cudaSuccess {
        return Err(RuntimeError(rc));
    }
    let rc = unsafe { cudaMemcpy(d, host.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice) };
    if rc != cudaError_t::cudaSuccess {
        unsafe { cudaFree(d) };
        return Err(RuntimeError(rc));
    }
    unsafe { cudaFree(d) }.result()
}

fn ok_cudamallochost_freed_with_cudafreehost() -> Result<(), RuntimeError> {
    let mut h: *mut c_void = std::ptr::null_mut();
    unsafe { cudaMallocHost(&mut h, BYTES) }.result()?;
    let staging = h as *mut f32;
    unsafe { *staging = 1.0 };
    unsafe { cudaFreeHost(h) }.result()
}

fn ok_cudahostalloc_freed_with_cudafreehost() -> Result<(), RuntimeError> {
    let mut h: *mut c_void = std::ptr::null_mut();
    unsafe { cudaHostAlloc(&mut h, BYTES, cudaHostAllocDefault) }.result()?;
    let staging = h as *mut f32;
    unsafe { *staging = 2.0 };
    unsafe { cudaFreeHost(h) }.result()
}

fn ok_managed_stored_in_field(ws: &mut Workspace) -> Result<(), RuntimeError> {
    let mut m: *mut c_void = std::ptr::null_mut();
    unsafe { cudaMallocManaged(&mut m, BYTES, cudaMemAttachGlobal) }.result()?;
    // The workspace owns it from here; its owner frees it.
    ws.managed = m;
    Ok(())
}

fn ok_cudamalloc_returned() -> Result<*mut c_void, RuntimeError> {
    let mut d: *mut c_void = std::ptr::null_mut();
    unsafe { cudaMalloc(&mut d, BYTES) }.result()?;
    let rc = unsafe { cudaMemset(d, 0, BYTES) };
    if rc != cudaError_t::cudaSuccess {
        unsafe { cudaFree(d) };
        return Err(RuntimeError(rc));
    }
    Ok(d)
}

fn ok_freed_and_made_again_every_round() -> Result<(), RuntimeError> {
    let mut d: *mut c_void = std::ptr::null_mut();
    for round in 1..=ROUNDS {
        unsafe { cudaMalloc(&mut d, round * BYTES) }.result()?;
        let r = unsafe { cudaMemset(d, 0, round * BYTES) }.result();
        // Released before the next round reallocates into `d`.
        unsafe { cudaFree(d) }.result()?;
        r?;
    }
    Ok(())
}

fn main() {}
