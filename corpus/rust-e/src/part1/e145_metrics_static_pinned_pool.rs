//! case: telemetry exporter keeps a process-wide pool of cuMemAllocHost slabs in a static Mutex; snapshots of device counters are downloaded into a checked-out slab, the stream is synchronized before the slab is read and returned, and shutdown releases every slab with cuMemFreeHost
//! expect: none

use std::ffi::c_void;
use std::sync::Mutex;

use cudarc::driver::sys;

struct Slab {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: a slab is owned by exactly one holder at a time (the pool or one checkout).
unsafe impl Send for Slab {}

static POOL: Mutex<Vec<Slab>> = Mutex::new(Vec::new());

fn checkout(bytes: usize) -> Result<Slab, sys::CUresult> {
    let mut pool = POOL.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(i) = pool.iter().position(|s| s.len >= bytes) {
        return Ok(pool.swap_remove(i));
    }
    drop(pool);
    let len = bytes.next_power_of_two().max(4096);
    let mut p: *mut c_void = std::ptr::null_mut();
    match unsafe { sys::cuMemAllocHost_v2(&mut p, len) } {
        sys::CUresult::CUDA_SUCCESS => Ok(Slab { ptr: p as *mut u8, len }),
        e => Err(e),
    }
}

fn give_back(slab: Slab) {
    POOL.lock().unwrap_or_else(|p| p.into_inner()).push(slab);
}

/// A metrics source living in device memory (counters written by the application's kernels).
pub struct DeviceCounters {
    pub name: &'static str,
    pub ptr: sys::CUdeviceptr,
    pub count: usize,
}

/// Copies the current counter values off the device; `stream` is the stream their kernels use.
pub fn snapshot(stream: sys::CUstream, src: &DeviceCounters) -> Result<Vec<u64>, sys::CUresult> {
    let bytes = src.count * 8;
    let slab = checkout(bytes)?;
    let rc = unsafe {
        let rc = sys::cuMemcpyDtoHAsync_v2(slab.ptr as *mut c_void, src.ptr, bytes, stream);
        if rc == sys::CUresult::CUDA_SUCCESS { sys::cuStreamSynchronize(stream) } else { rc }
    };
    if rc != sys::CUresult::CUDA_SUCCESS {
        // a copy may still be writing the slab: leak it rather than reuse it
        std::mem::forget(slab);
        return Err(rc);
    }
    let values = unsafe { std::slice::from_raw_parts(slab.ptr as *const u64, src.count) }.to_vec();
    give_back(slab);
    Ok(values)
}

pub fn export(stream: sys::CUstream, sources: &[DeviceCounters]) -> Result<String, sys::CUresult> {
    let mut out = String::new();
    for s in sources {
        let values = snapshot(stream, s)?;
        let line: Vec<String> = values.iter().enumerate().map(|(i, v)| format!("{}{{slot=\"{i}\"}} {v}", s.name)).collect();
        out.push_str(&line.join("\n"));
        out.push('\n');
    }
    Ok(out)
}

/// Called once at process exit, after all streams are idle.
pub fn shutdown() {
    let slabs = std::mem::take(&mut *POOL.lock().unwrap_or_else(|p| p.into_inner()));
    for s in slabs {
        unsafe {
            sys::cuMemFreeHost(s.ptr as *mut c_void);
        }
    }
}
