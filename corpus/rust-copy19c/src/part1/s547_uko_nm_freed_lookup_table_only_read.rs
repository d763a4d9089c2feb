//! case: near miss: a lookup table uploaded with cuMemcpyHtoD is only read by the kernel and freed without a copy back (no kernel wrote it)
//! expect: none

use cudarc::driver::sys;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;
use std::mem::size_of;

const SRC: &str = r#"
extern "C" __global__ void apply_lut(const unsigned char* lut, const unsigned char* in, unsigned char* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = lut[in[i]];
}
"#;

const N: usize = 1 << 15;

pub fn gamma(input: &[u8; N], lut: &[u8; 256]) -> Vec<u8> {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SRC).unwrap()).unwrap().load_function("apply_lut").unwrap();
    let (mut d_lut, mut d_in, mut d_out): (sys::CUdeviceptr, sys::CUdeviceptr, sys::CUdeviceptr) = (0, 0, 0);
    let mut out = vec![0u8; N];
    unsafe {
        sys::cuMemAlloc_v2(&mut d_lut, 256).result().unwrap();
        sys::cuMemAlloc_v2(&mut d_in, N).result().unwrap();
        sys::cuMemAlloc_v2(&mut d_out, N * size_of::<u8>()).result().unwrap();
        sys::cuMemcpyHtoD_v2(d_lut, lut.as_ptr() as *const c_void, 256).result().unwrap();
        sys::cuMemcpyHtoD_v2(d_in, input.as_ptr() as *const c_void, N).result().unwrap();
    }
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&d_lut).arg(&d_in).arg(&d_out).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)).unwrap() };
    unsafe {
        sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_out, N).result().unwrap();
        sys::cuMemFree_v2(d_lut).result().unwrap();
        sys::cuMemFree_v2(d_in).result().unwrap();
        sys::cuMemFree_v2(d_out).result().unwrap();
    }
    out
}
