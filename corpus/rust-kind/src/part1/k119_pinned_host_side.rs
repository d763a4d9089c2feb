//! case: a video decoder streams frames through cuMemAllocHost_v2 pinned staging buffers with cuMemcpyHtoDAsync_v2/cuMemcpyDtoHAsync_v2 to cuMemAlloc_v2 device frames; pinned memory is always a valid host side.
//! expect: none
use cudarc::driver::sys;
use std::ffi::c_void;

pub struct FrameStager {
    pub pinned_in: *mut c_void,
    pub pinned_out: *mut c_void,
    pub d_frame: sys::CUdeviceptr,
    pub d_luma: sys::CUdeviceptr,
    pub frame_bytes: usize,
    pub stream: sys::CUstream,
}

pub fn new_stager(width: usize, height: usize) -> FrameStager {
    let frame_bytes = width * height * 3 / 2; // NV12
    let mut s = FrameStager {
        pinned_in: std::ptr::null_mut(),
        pinned_out: std::ptr::null_mut(),
        d_frame: 0,
        d_luma: 0,
        frame_bytes,
        stream: std::ptr::null_mut(),
    };
    unsafe {
        sys::cuMemAllocHost_v2(&mut s.pinned_in, frame_bytes);
        sys::cuMemAllocHost_v2(&mut s.pinned_out, width * height);
        sys::cuMemAlloc_v2(&mut s.d_frame, frame_bytes);
        sys::cuMemAlloc_v2(&mut s.d_luma, width * height);
        sys::cuStreamCreate(&mut s.stream, 0);
    }
    s
}

pub fn process(s: &FrameStager, encoded: &[u8], luma_out: &mut Vec<u8>) {
    let n = encoded.len().min(s.frame_bytes);
    let luma_bytes = s.frame_bytes * 2 / 3;
    unsafe {
        std::ptr::copy_nonoverlapping(encoded.as_ptr(), s.pinned_in as *mut u8, n);
        sys::cuMemcpyHtoDAsync_v2(s.d_frame, s.pinned_in as *const c_void, s.frame_bytes, s.stream);
        // luma extraction kernel d_frame -> d_luma
        sys::cuMemcpyDtoHAsync_v2(s.pinned_out, s.d_luma, luma_bytes, s.stream);
        sys::cuStreamSynchronize(s.stream);
        luma_out.clear();
        luma_out.extend_from_slice(std::slice::from_raw_parts(s.pinned_out as *const u8, luma_bytes));
    }
}
