//! case: a double-buffered ring for an audio FFT pipeline "refills" the back buffer with cuMemcpyHtoDAsync_v2 whose host source is actually the front buffer from cuMemAlloc_v2 (device memory where host memory is stated); the first upload from pinned memory is fine.
//! expect: memcpy_kind_mismatch=1
use cudarc::driver::sys;
use std::ffi::c_void;

pub struct AudioRing {
    pub front: sys::CUdeviceptr,
    pub back: sys::CUdeviceptr,
    pub pinned: *mut c_void,
    pub frame_bytes: usize,
    pub stream: sys::CUstream,
}

pub fn open_ring(frame_len: usize) -> AudioRing {
    let frame_bytes = frame_len * std::mem::size_of::<f32>();
    let mut front: sys::CUdeviceptr = 0;
    let mut back: sys::CUdeviceptr = 0;
    let mut pinned: *mut c_void = std::ptr::null_mut();
    let mut stream: sys::CUstream = std::ptr::null_mut();
    unsafe {
        sys::cuMemAlloc_v2(&mut front, frame_bytes);
        sys::cuMemAlloc_v2(&mut back, frame_bytes);
        sys::cuMemAllocHost_v2(&mut pinned, frame_bytes);
        sys::cuStreamCreate(&mut stream, 0);
    }
    AudioRing { front, back, pinned, frame_bytes, stream }
}

pub fn feed(ring: &mut AudioRing, samples: &[f32]) {
    let n = samples.len().min(ring.frame_bytes / 4);
    unsafe {
        std::ptr::copy_nonoverlapping(samples.as_ptr(), ring.pinned as *mut f32, n);
        sys::cuMemcpyHtoDAsync_v2(ring.front, ring.pinned, ring.frame_bytes, ring.stream);
        // overlap-save: the back buffer starts as a copy of the front one
        sys::cuMemcpyHtoDAsync_v2(ring.back, ring.front as *const c_void, ring.frame_bytes, ring.stream); // EXPECT: memcpy_kind_mismatch
        sys::cuStreamSynchronize(ring.stream);
    }
    std::mem::swap(&mut ring.front, &mut ring.back);
}
