//! case: two halves of a stereo buffer are uploaded separately, the right channel at d_pcm + HALF_BYTES with HALF_BYTES bytes: the offset copy ends exactly at the allocation's end
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const FRAMES: usize = 1024;
const HALF_BYTES: usize = FRAMES * 2; // i16 samples
const PCM_BYTES: usize = 2 * HALF_BYTES;

pub fn upload_stereo(left: &[i16; FRAMES], right: &[i16; FRAMES]) -> Result<Vec<i16>, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut planar = vec![0i16; 2 * FRAMES];
    let mut d_pcm: CUdeviceptr = 0;
    let mut failures = 0u32;
    unsafe {
        let rcs = [
            sys::cuMemAlloc_v2(&mut d_pcm, PCM_BYTES),
            sys::cuMemcpyHtoD_v2(d_pcm, left.as_ptr() as *const c_void, HALF_BYTES),
            sys::cuMemcpyHtoD_v2(d_pcm + HALF_BYTES as u64, right.as_ptr() as *const c_void, HALF_BYTES),
            sys::cuMemcpyDtoH_v2(planar.as_mut_ptr() as *mut c_void, d_pcm, PCM_BYTES),
            sys::cuMemFree_v2(d_pcm),
        ];
        failures = rcs.iter().filter(|r| **r != CUresult::CUDA_SUCCESS).count() as u32;
    }
    if failures > 0 {
        return Err("pcm upload failed".into());
    }
    Ok(planar)
}
