//! case: a double-height frame buffer receives the second field at d_frame + FIELD_BYTES but the copy is given the whole frame's byte count: only FIELD_BYTES remain after the offset
//! expect: copy_out_of_bounds=1
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const WIDTH: usize = 128;
const FIELD_LINES: usize = 32;
const FIELD_BYTES: usize = WIDTH * FIELD_LINES;
const FRAME_BYTES: usize = 2 * FIELD_BYTES;

pub fn interleave_fields(top: &[u8; FIELD_BYTES], bottom: &[u8; FIELD_BYTES]) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut staged = vec![0u8; FRAME_BYTES];
    staged[..FIELD_BYTES].copy_from_slice(top);
    staged[FIELD_BYTES..].copy_from_slice(bottom);

    let mut out = vec![0u8; FRAME_BYTES];
    let mut d_frame: CUdeviceptr = 0;
    let mut rcs = [CUresult::CUDA_SUCCESS; 5];
    unsafe {
        rcs[0] = sys::cuMemAlloc_v2(&mut d_frame, FRAME_BYTES);
        rcs[1] = sys::cuMemcpyHtoD_v2(d_frame, staged.as_ptr() as *const c_void, FIELD_BYTES);
        rcs[2] = sys::cuMemcpyHtoD_v2( // EXPECT: copy_out_of_bounds
            d_frame + FIELD_BYTES as u64,
            staged[FIELD_BYTES..].as_ptr() as *const c_void,
            FRAME_BYTES,
        );
        rcs[3] = sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_frame, FRAME_BYTES);
        rcs[4] = sys::cuMemFree_v2(d_frame);
    }
    if rcs.iter().any(|r| *r != CUresult::CUDA_SUCCESS) {
        return Err("frame copy failed".into());
    }
    Ok(out)
}
