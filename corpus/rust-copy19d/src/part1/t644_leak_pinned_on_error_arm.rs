//! case: a data loader's pinned staging buffer (cuMemAllocHost) is lost on the error arm of a match on the upload's status, which frees only the device buffer before returning.
//! expect: device_memory_leak=1
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::{CudaContext, DriverError};
use std::ffi::c_void;
use std::mem::size_of;

const RECORDS: usize = 1 << 14;
const BYTES: usize = RECORDS * size_of::<f32>();

pub fn load_records(src: &[f32; RECORDS]) -> Result<Vec<f32>, DriverError> {
    let _ctx = CudaContext::new(0)?;
    let mut pinned: *mut c_void = std::ptr::null_mut();
    let mut d_records: CUdeviceptr = 0;
    let mut out = vec![0.0f32; RECORDS];
    unsafe {
        sys::cuMemAllocHost_v2(&mut pinned, BYTES).result()?; // EXPECT: device_memory_leak
        if let Err(e) = sys::cuMemAlloc_v2(&mut d_records, BYTES).result() {
            sys::cuMemFreeHost(pinned);
            return Err(e);
        }
        std::ptr::copy_nonoverlapping(src.as_ptr(), pinned as *mut f32, RECORDS);
        match sys::cuMemcpyHtoD_v2(d_records, pinned as *const c_void, BYTES) {
            CUresult::CUDA_SUCCESS => {}
            err => {
                sys::cuMemFree_v2(d_records);
                return Err(err.result().unwrap_err());
            }
        }
        let down = sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_records, BYTES);
        sys::cuMemFree_v2(d_records);
        sys::cuMemFreeHost(pinned);
        down.result()?;
    }
    Ok(out)
}
