//! case: a video decoder helper copies one fixed-size frame into a device pointer it receives as a parameter; no code calls it, so the destination's size is unknown.
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};

const FRAME_BYTES: usize = 1920 * 1080 * 3 / 2; // NV12

pub unsafe fn upload_nv12_frame(d_frame: CUdeviceptr, frame: &[u8; FRAME_BYTES]) -> CUresult {
    unsafe { sys::cuMemcpyHtoD_v2(d_frame, frame.as_ptr() as *const _, FRAME_BYTES) }
}

pub unsafe fn download_nv12_frame(d_frame: CUdeviceptr, frame: &mut [u8; FRAME_BYTES]) -> CUresult {
    unsafe { sys::cuMemcpyDtoH_v2(frame.as_mut_ptr() as *mut _, d_frame, FRAME_BYTES) }
}
