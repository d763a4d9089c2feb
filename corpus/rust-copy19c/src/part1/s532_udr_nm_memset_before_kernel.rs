//! case: near miss: an accumulator from cuMemAlloc is cleared with cuMemsetD32 before a kernel reads it, and the result is copied back
//! expect: none

use cudarc::driver::sys;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;
use std::mem::size_of;

const SRC: &str = r#"
extern "C" __global__ void offset_copy(const int* base, int* out, int delta, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = base[i] + delta;
}
"#;

const N: usize = 2048;

pub fn offsets(delta: i32) -> Vec<i32> {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SRC).unwrap()).unwrap().load_function("offset_copy").unwrap();
    let mut d_base: sys::CUdeviceptr = 0;
    let mut d_out: sys::CUdeviceptr = 0;
    let mut out = vec![0i32; N];
    unsafe {
        sys::cuMemAlloc_v2(&mut d_base, N * size_of::<i32>()).result().unwrap();
        sys::cuMemAlloc_v2(&mut d_out, N * size_of::<i32>()).result().unwrap();
        sys::cuMemsetD32_v2(d_base, 0, N).result().unwrap();
    }
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&d_base).arg(&d_out).arg(&delta).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)).unwrap() };
    unsafe {
        sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_out, N * size_of::<i32>()).result().unwrap();
        sys::cuMemFree_v2(d_out).result().unwrap();
        sys::cuMemFree_v2(d_base).result().unwrap();
    }
    out
}
