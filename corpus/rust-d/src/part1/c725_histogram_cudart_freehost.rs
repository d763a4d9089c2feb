//! case: an image-histogram helper (its own `extern "C"` libcudart declarations) keeps device bins from cudaMalloc and pinned host bins from cudaMallocHost; its cleanup releases both with cudaFreeHost
//! expect: mismatched_free=1

use std::ffi::{c_int, c_uint, c_void};
use std::mem::size_of;
use std::ptr::null_mut;

type Stream = *mut c_void;

#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaMalloc(ptr: *mut *mut c_void, size: usize) -> c_int;
    fn cudaMallocHost(ptr: *mut *mut c_void, size: usize) -> c_int;
    fn cudaFreeHost(ptr: *mut c_void) -> c_int;
    fn cudaMemsetAsync(ptr: *mut c_void, value: c_int, count: usize, stream: Stream) -> c_int;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: c_int, stream: Stream) -> c_int;
    fn cudaStreamSynchronize(stream: Stream) -> c_int;
    fn cudaGetLastError() -> c_int;
}

const BINS: usize = 256;
const D2H: c_int = 2;

pub struct LumaHistogram {
    stream: Stream,
    d_bins: *mut c_void,
    h_bins: *mut c_void,
}

impl LumaHistogram {
    pub fn new(stream: Stream) -> Result<Self, c_int> {
        let (mut d_bins, mut h_bins) = (null_mut(), null_mut());
        let rc = unsafe { cudaMalloc(&mut d_bins, BINS * size_of::<c_uint>()) };
        if rc != 0 {
            return Err(rc);
        }
        let rc = unsafe { cudaMallocHost(&mut h_bins, BINS * size_of::<c_uint>()) };
        if rc != 0 {
            return Err(rc);
        }
        Ok(Self { stream, d_bins, h_bins })
    }

    /// Device pointer for the `hist256` kernel the caller launches on `stream`.
    pub fn device_bins(&self) -> *mut c_void {
        self.d_bins
    }

    pub fn clear(&self) -> c_int {
        unsafe { cudaMemsetAsync(self.d_bins, 0, BINS * size_of::<c_uint>(), self.stream) }
    }

    pub fn fetch(&self) -> Result<[u32; BINS], c_int> {
        let rc = unsafe { cudaMemcpyAsync(self.h_bins, self.d_bins, BINS * size_of::<c_uint>(), D2H, self.stream) };
        if rc != 0 {
            return Err(rc);
        }
        let rc = unsafe { cudaStreamSynchronize(self.stream) };
        if rc != 0 {
            return Err(rc);
        }
        let mut out = [0u32; BINS];
        out.copy_from_slice(unsafe { std::slice::from_raw_parts(self.h_bins as *const u32, BINS) });
        Ok(out)
    }

    fn release(&mut self) {
        unsafe {
            cudaStreamSynchronize(self.stream);
            for p in [&mut self.h_bins, &mut self.d_bins] {
                if !p.is_null() {
                    cudaFreeHost(*p); // EXPECT: mismatched_free
                    *p = null_mut();
                }
            }
            let _ = cudaGetLastError();
        }
    }
}

impl Drop for LumaHistogram {
    fn drop(&mut self) {
        self.release();
    }
}
