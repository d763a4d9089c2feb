//! case: cudaMalloc'd buffers (cudarc::runtime::sys) passed to a kernel as raw addresses; the readback cudaMemcpy uses d_in instead of d_out, then cudaFree throws the result away
//! expect: unread_kernel_output=1

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys::{self, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const SRC: &str = r#"
extern "C" __global__ void square(const double* in, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
}
"#;

const N: usize = 2048;
const BYTES: usize = N * size_of::<f64>();

pub fn squares(input: &[f64; N]) -> Vec<f64> {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SRC).unwrap()).unwrap().load_function("square").unwrap();
    let mut d_in: *mut c_void = std::ptr::null_mut();
    let mut d_out: *mut c_void = std::ptr::null_mut();
    let mut result = vec![0.0f64; N];
    unsafe {
        assert_eq!(sys::cudaMalloc(&mut d_in, BYTES), sys::cudaError_t::cudaSuccess);
        assert_eq!(sys::cudaMalloc(&mut d_out, BYTES), sys::cudaError_t::cudaSuccess);
        sys::cudaMemcpy(d_in, input.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
    }
    let in_addr = d_in as u64;
    let out_addr = d_out as u64;
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&in_addr).arg(&out_addr).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)).unwrap() };
    unsafe {
        sys::cudaDeviceSynchronize();
        sys::cudaMemcpy(result.as_mut_ptr() as *mut c_void, d_in, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d_in);
        sys::cudaFree(d_out); // EXPECT: unread_kernel_output
    }
    result
}
