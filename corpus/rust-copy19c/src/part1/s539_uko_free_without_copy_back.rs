//! case: DRACC 012 shape with the driver API: the multiply kernel writes d_c, the host then checks its own h_c (never refreshed) and d_c is freed without a cuMemcpyDtoH
//! expect: unread_kernel_output=1

use cudarc::driver::sys;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;
use std::mem::size_of;

const SRC: &str = r#"
extern "C" __global__ void mult(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] * b[i];
}
"#;

const N: usize = 1 << 16;
const BYTES: usize = N * size_of::<f32>();

pub fn multiply_and_check() -> bool {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let mult = ctx.load_module(compile_ptx(SRC).unwrap()).unwrap().load_function("mult").unwrap();
    let h_a = vec![2.0f32; N];
    let h_b = vec![3.0f32; N];
    let h_c = vec![0.0f32; N];
    let (mut d_a, mut d_b, mut d_c): (sys::CUdeviceptr, sys::CUdeviceptr, sys::CUdeviceptr) = (0, 0, 0);
    unsafe {
        sys::cuMemAlloc_v2(&mut d_a, BYTES).result().unwrap();
        sys::cuMemAlloc_v2(&mut d_b, BYTES).result().unwrap();
        sys::cuMemAlloc_v2(&mut d_c, BYTES).result().unwrap();
        sys::cuMemcpyHtoD_v2(d_a, h_a.as_ptr() as *const c_void, BYTES).result().unwrap();
        sys::cuMemcpyHtoD_v2(d_b, h_b.as_ptr() as *const c_void, BYTES).result().unwrap();
    }
    let n = N as i32;
    let mut launch = stream.launch_builder(&mult);
    launch.arg(&d_a).arg(&d_b).arg(&d_c).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32)).unwrap() };
    stream.synchronize().unwrap();
    let ok = h_c.iter().all(|&v| (v - 6.0).abs() < 1e-6);
    unsafe {
        sys::cuMemFree_v2(d_a).result().unwrap();
        sys::cuMemFree_v2(d_b).result().unwrap();
        sys::cuMemFree_v2(d_c).result().unwrap(); // EXPECT: unread_kernel_output
    }
    ok
}
