//! case: near miss: the kernel's output is consumed by cuBLAS (cublasSasum through cudarc::cublas::sys, a library whose body is not in the crate) before the free
//! expect: none

use cudarc::cublas::sys as cublas;
use cudarc::driver::sys;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;
use std::mem::size_of;

const SRC: &str = r#"
extern "C" __global__ void diff(const float* a, const float* b, float* d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = a[i] - b[i];
}
"#;

const N: usize = 4096;
const BYTES: usize = N * size_of::<f32>();

pub fn l1_distance(a: &[f32; N], b: &[f32; N]) -> f32 {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SRC).unwrap()).unwrap().load_function("diff").unwrap();
    let (mut d_a, mut d_b, mut d_d): (sys::CUdeviceptr, sys::CUdeviceptr, sys::CUdeviceptr) = (0, 0, 0);
    unsafe {
        sys::cuMemAlloc_v2(&mut d_a, BYTES).result().unwrap();
        sys::cuMemAlloc_v2(&mut d_b, BYTES).result().unwrap();
        sys::cuMemAlloc_v2(&mut d_d, BYTES).result().unwrap();
        sys::cuMemcpyHtoD_v2(d_a, a.as_ptr() as *const c_void, BYTES).result().unwrap();
        sys::cuMemcpyHtoD_v2(d_b, b.as_ptr() as *const c_void, BYTES).result().unwrap();
    }
    let n = N as i32;
    let mut l = stream.launch_builder(&f);
    l.arg(&d_a).arg(&d_b).arg(&d_d).arg(&n);
    unsafe { l.launch(LaunchConfig::for_num_elems(N as u32)).unwrap() };
    let mut dist = 0.0f32;
    unsafe {
        let mut handle: cublas::cublasHandle_t = std::ptr::null_mut();
        cublas::cublasCreate_v2(&mut handle).result().unwrap();
        cublas::cublasSasum_v2(handle, n, d_d as *const f32, 1, &mut dist).result().unwrap();
        cublas::cublasDestroy_v2(handle).result().unwrap();
        sys::cuMemFree_v2(d_d).result().unwrap();
        sys::cuMemFree_v2(d_b).result().unwrap();
        sys::cuMemFree_v2(d_a).result().unwrap();
    }
    dist
}
