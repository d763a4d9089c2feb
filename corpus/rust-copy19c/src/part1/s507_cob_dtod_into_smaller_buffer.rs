//! case: cuMemcpyDtoD copies the full FRAME-sized source into a snapshot buffer allocated for a quarter frame (thumbnail size)
//! expect: copy_out_of_bounds=1

use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const FRAME_BYTES: usize = 1920 * 1080 * 4;
const THUMB_BYTES: usize = FRAME_BYTES / 4;

pub fn snapshot_frame() -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let mut d_frame: sys::CUdeviceptr = 0;
    let mut d_snapshot: sys::CUdeviceptr = 0;
    let mut out = vec![0u8; THUMB_BYTES];
    unsafe {
        sys::cuMemAlloc_v2(&mut d_frame, FRAME_BYTES).result().expect("allocation failed");
        sys::cuMemAlloc_v2(&mut d_snapshot, THUMB_BYTES).result().expect("allocation failed");
        sys::cuMemsetD8_v2(d_frame, 0x80, FRAME_BYTES).result().expect("cuMemsetD8_v2");
        sys::cuMemcpyDtoD_v2(d_snapshot, d_frame, FRAME_BYTES).result().expect("cuMemcpyDtoD_v2"); // EXPECT: copy_out_of_bounds
        sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_snapshot, THUMB_BYTES).result().expect("cuMemcpyDtoH_v2");
        sys::cuMemFree_v2(d_snapshot).result().expect("cuMemFree_v2");
        sys::cuMemFree_v2(d_frame).result().expect("cuMemFree_v2");
    }
    Ok(out)
}
