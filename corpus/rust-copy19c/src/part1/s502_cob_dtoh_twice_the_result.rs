//! case: the result buffer holds RESULT_LEN floats on the device but cuMemcpyDtoH reads back twice that into a host array (DRACC 016 shape)
//! expect: copy_out_of_bounds=1

use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use std::ffi::c_void;
use std::mem::size_of;

const RESULT_LEN: usize = 512;

pub fn fetch_scores() -> Result<f32, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let mut h_scores = [0.0f32; 2 * RESULT_LEN];
    let mut d_scores: sys::CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_scores, RESULT_LEN * size_of::<f32>()).result().expect("allocation failed");
        // 0x3f800000 is 1.0f
        sys::cuMemsetD32_v2(d_scores, 0x3f80_0000, RESULT_LEN).result().expect("cuMemsetD32_v2");
        sys::cuMemcpyDtoH_v2(h_scores.as_mut_ptr() as *mut c_void, d_scores, 2 * RESULT_LEN * size_of::<f32>()).result().expect("cuMemcpyDtoH_v2"); // EXPECT: copy_out_of_bounds
        sys::cuMemFree_v2(d_scores).result().expect("cuMemFree_v2");
    }
    Ok(h_scores.iter().sum())
}
