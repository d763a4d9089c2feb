//! case: cudaHostAlloc(cudaHostAllocWriteCombined) staging split between scoped writer threads that only store into it, then one cudaMemcpyAsync to the device
//! expect: none
use std::ffi::c_void;
use std::ptr::null_mut;
use std::thread;

use cudarc::runtime::sys;

struct WcStaging {
    ptr: *mut f32,
    len: usize,
}

// SAFETY: disjoint chunks are handed to the threads.
unsafe impl Send for WcStaging {}
unsafe impl Sync for WcStaging {}

fn check(e: sys::cudaError_t) -> Result<(), String> {
    if e == sys::cudaError_t::cudaSuccess { Ok(()) } else { Err(format!("{e:?}")) }
}

pub fn upload_columns(columns: &[Vec<f32>]) -> Result<(), String> {
    let rows = columns.first().map_or(0, Vec::len);
    let len = rows * columns.len();
    let mut p: *mut c_void = null_mut();
    check(unsafe { sys::cudaHostAlloc(&mut p, len * 4, sys::cudaHostAllocWriteCombined) })?;
    let staging = WcStaging { ptr: p as *mut f32, len };

    // transpose column-major input into the row-major staging area, one thread per column
    thread::scope(|s| {
        for (c, col) in columns.iter().enumerate() {
            let staging = &staging;
            let ncols = columns.len();
            s.spawn(move || {
                for (r, &v) in col.iter().enumerate() {
                    unsafe { staging.ptr.add(r * ncols + c).write(v) };
                }
            });
        }
    });

    let mut stream: sys::cudaStream_t = null_mut();
    let mut dev: *mut c_void = null_mut();
    check(unsafe { sys::cudaStreamCreateWithFlags(&mut stream, sys::cudaStreamNonBlocking) })?;
    check(unsafe { sys::cudaMalloc(&mut dev, staging.len * 4) })?;
    check(unsafe { sys::cudaMemcpyAsync(dev, staging.ptr as *const c_void, staging.len * 4, sys::cudaMemcpyKind::cudaMemcpyHostToDevice, stream) })?;
    check(unsafe { sys::cudaStreamSynchronize(stream) })?;
    check(unsafe { sys::cudaFreeHost(staging.ptr as *mut c_void) })?;
    check(unsafe { sys::cudaFree(dev) })?;
    check(unsafe { sys::cudaStreamDestroy(stream) })
}

pub fn run() -> Result<(), String> {
    let cols: Vec<Vec<f32>> = (0..8).map(|c| (0..1000).map(|r| (r * c) as f32).collect()).collect();
    upload_columns(&cols)
}
