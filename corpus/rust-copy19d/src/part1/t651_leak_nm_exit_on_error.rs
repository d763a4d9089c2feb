//! case: a command-line tool cuMemAlloc's a buffer and calls std::process::exit when the upload fails (the process ends on purpose); otherwise it frees the buffer.
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;
use std::mem::size_of;

const N: usize = 1 << 12;

pub fn run_tool() {
    let _ctx = match CudaContext::new(0) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("no CUDA device: {e}");
            std::process::exit(2);
        }
    };
    let data = vec![3.0f32; N];
    let mut back = vec![0.0f32; N];
    let mut d: CUdeviceptr = 0;
    unsafe {
        if sys::cuMemAlloc_v2(&mut d, N * size_of::<f32>()) != CUresult::CUDA_SUCCESS {
            eprintln!("allocation failed");
            std::process::exit(1);
        }
        if sys::cuMemcpyHtoD_v2(d, data.as_ptr() as *const c_void, N * size_of::<f32>()) != CUresult::CUDA_SUCCESS {
            eprintln!("upload failed");
            std::process::exit(1);
        }
        sys::cuMemcpyDtoH_v2(back.as_mut_ptr() as *mut c_void, d, N * size_of::<f32>());
        sys::cuMemFree_v2(d);
    }
    println!("sum = {}", back.iter().sum::<f32>());
}
