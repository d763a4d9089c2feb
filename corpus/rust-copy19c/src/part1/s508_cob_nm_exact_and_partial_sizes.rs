//! case: near miss: cuMemcpyHtoD of exactly the allocated size, then a readback of only the first half
//! expect: none

use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use std::ffi::c_void;
use std::mem::size_of;

const N: usize = 2048;
const BYTES: usize = N * size_of::<f64>();

pub fn roundtrip_half() -> Vec<f64> {
    let ctx = CudaContext::new(0).expect("no device");
    ctx.bind_to_thread().expect("bind");
    let host: Vec<f64> = (0..N).map(|i| i as f64).collect();
    let mut first_half = vec![0.0f64; N / 2];
    let mut d_buf: sys::CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_buf, BYTES).result().expect("cuMemAlloc");
        sys::cuMemcpyHtoD_v2(d_buf, host.as_ptr() as *const c_void, BYTES).result().expect("cuMemcpyHtoD");
        sys::cuMemcpyDtoH_v2(first_half.as_mut_ptr() as *mut c_void, d_buf, BYTES / 2).result().expect("cuMemcpyDtoH");
        sys::cuMemFree_v2(d_buf).result().expect("cuMemFree");
    }
    first_half
}
