//! case: device buffers start as CUdeviceptr 0 and are allocated through the crate's own helper `alloc_device(&mut p, bytes)` before any copy; a cuMemFree of a never-allocated 0 pointer on the cleanup path is legal
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const N: usize = 1024;
const BYTES: usize = N * 4;

fn alloc_device(p: &mut CUdeviceptr, bytes: usize) -> CUresult {
    unsafe { sys::cuMemAlloc_v2(p, bytes) }
}

pub fn mirror(src: &[u32; N], keep_spare: bool) -> Result<Vec<u32>, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut d_src: CUdeviceptr = 0;
    let mut d_dst: CUdeviceptr = 0;
    let d_spare: CUdeviceptr = 0; // only a future version fills it
    let mut out = vec![0u32; N];
    let mut rcs = Vec::new();
    rcs.push(alloc_device(&mut d_src, BYTES));
    rcs.push(alloc_device(&mut d_dst, BYTES));
    unsafe {
        rcs.push(sys::cuMemcpyHtoD_v2(d_src, src.as_ptr() as *const c_void, BYTES));
        rcs.push(sys::cuMemcpyDtoD_v2(d_dst, d_src, BYTES));
        rcs.push(sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_dst, BYTES));
        rcs.push(sys::cuMemFree_v2(d_src));
        rcs.push(sys::cuMemFree_v2(d_dst));
        if !keep_spare {
            rcs.push(sys::cuMemFree_v2(d_spare));
        }
    }
    if rcs.iter().any(|r| *r != CUresult::CUDA_SUCCESS) {
        return Err("mirror failed".into());
    }
    Ok(out)
}
