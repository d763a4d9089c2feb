//! case: a CUdeviceptr left at 0 (its cuMemAlloc was deleted in a refactor) is passed to a kernel through cudarc's launch builder; the kernel reads b[i] without a null test
//! expect: unallocated_pointer=1

use cudarc::driver::sys;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;
use std::mem::size_of;

const SRC: &str = r#"
extern "C" __global__ void axpby(const float* a, const float* b, float* c, float alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = alpha * a[i] + b[i];
    }
}
"#;

const N: usize = 8192;
const BYTES: usize = N * size_of::<f32>();

pub fn run_axpby() -> Vec<f32> {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SRC).unwrap()).unwrap();
    let axpby = module.load_function("axpby").unwrap();

    let h_a = vec![1.0f32; N];
    let mut h_c = vec![0.0f32; N];
    let mut d_a: sys::CUdeviceptr = 0;
    let d_b: sys::CUdeviceptr = 0;
    let mut d_c: sys::CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_a, BYTES).result().unwrap();
        sys::cuMemAlloc_v2(&mut d_c, BYTES).result().unwrap();
        sys::cuMemcpyHtoD_v2(d_a, h_a.as_ptr() as *const c_void, BYTES).result().unwrap();
    }
    let alpha = 2.0f32;
    let n = N as i32;
    let mut launch = stream.launch_builder(&axpby);
    launch.arg(&d_a).arg(&d_b).arg(&d_c).arg(&alpha).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32)) }.unwrap(); // EXPECT: unallocated_pointer
    unsafe {
        sys::cuMemcpyDtoH_v2(h_c.as_mut_ptr() as *mut c_void, d_c, BYTES).result().unwrap();
        sys::cuMemFree_v2(d_c).result().unwrap();
        sys::cuMemFree_v2(d_a).result().unwrap();
    }
    h_c
}
