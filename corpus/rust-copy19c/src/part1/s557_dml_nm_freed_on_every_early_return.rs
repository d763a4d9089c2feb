//! case: near miss: every early error return after cuMemAlloc frees the buffer first, and the normal path frees it too
//! expect: none

use cudarc::driver::sys;
use cudarc::driver::{CudaContext, DriverError};
use std::ffi::c_void;
use std::mem::size_of;

const N: usize = 1 << 12;

pub fn staged_roundtrip(data: &[f32; N]) -> Result<Vec<f32>, DriverError> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let mut d_tmp: sys::CUdeviceptr = 0;
    let mut out = vec![0.0f32; N];
    unsafe {
        sys::cuMemAlloc_v2(&mut d_tmp, N * size_of::<f32>()).result()?;
        if let Err(e) = sys::cuMemcpyHtoD_v2(d_tmp, data.as_ptr() as *const c_void, N * size_of::<f32>()).result() {
            sys::cuMemFree_v2(d_tmp);
            return Err(e);
        }
        if let Err(e) = sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_tmp, N * size_of::<f32>()).result() {
            sys::cuMemFree_v2(d_tmp);
            return Err(e);
        }
        sys::cuMemFree_v2(d_tmp).result()?;
    }
    Ok(out)
}
