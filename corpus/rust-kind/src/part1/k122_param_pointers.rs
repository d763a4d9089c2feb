//! case: public transfer helpers take raw destination/source pointers from their callers (origin not shown in this crate) and copy with a fixed kind; the names look odd but nothing shows where the memory was allocated.
//! expect: none
use cudarc::runtime::sys;
use std::ffi::c_void;

pub struct Transfer {
    pub dst: *mut c_void,
    pub src: *const c_void,
    pub bytes: usize,
}

/// Uploads `bytes` from `staging` to `target`; callers pass a host staging area and a device buffer.
pub fn upload_raw(target: *mut c_void, staging: *const c_void, bytes: usize) -> bool {
    unsafe { sys::cudaMemcpy(target, staging, bytes, sys::cudaMemcpyKind::cudaMemcpyHostToDevice) == sys::cudaError_t::cudaSuccess }
}

/// Reads back into `host_out`; `src` is whatever device buffer the caller owns.
pub fn download_raw(host_out: *mut c_void, src: *const c_void, bytes: usize, stream: sys::cudaStream_t) {
    unsafe {
        sys::cudaMemcpyAsync(host_out, src, bytes, sys::cudaMemcpyKind::cudaMemcpyDeviceToHost, stream);
        sys::cudaStreamSynchronize(stream);
    }
}

pub fn run_queue(queue: &[Transfer], upload: bool) -> usize {
    let mut ok = 0;
    for t in queue {
        if upload {
            if upload_raw(t.dst, t.src, t.bytes) {
                ok += 1;
            }
        } else {
            download_raw(t.dst, t.src, t.bytes, std::ptr::null_mut());
            ok += 1;
        }
    }
    ok
}
