//! case: raw driver bindings with a cudarc launch: d_coeffs comes from cuMemAlloc_v2 and is passed as a CUdeviceptr to a kernel that only reads it; the coefficient upload is missing
//! expect: uninitialized_device_read=1
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;

const N: usize = 1024;
const DEG: usize = 4;

const POLY_SRC: &str = r#"
extern "C" __global__ void horner(const float* coeffs, int deg, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = coeffs[deg - 1];
    for (int k = deg - 2; k >= 0; --k) acc = acc * x[i] + coeffs[k];
    y[i] = acc;
}
"#;

pub fn eval_poly(xs: &[f32; N]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(POLY_SRC)?)?.load_function("horner")?;

    let mut ys = vec![0.0f32; N];
    let (mut d_coeffs, mut d_x, mut d_y): (CUdeviceptr, CUdeviceptr, CUdeviceptr) = (0, 0, 0);
    let mut rcs = Vec::new();
    unsafe {
        rcs.push(sys::cuMemAlloc_v2(&mut d_coeffs, DEG * 4));
        rcs.push(sys::cuMemAlloc_v2(&mut d_x, N * 4));
        rcs.push(sys::cuMemAlloc_v2(&mut d_y, N * 4));
        rcs.push(sys::cuMemcpyHtoD_v2(d_x, xs.as_ptr() as *const c_void, N * 4));
    }
    let (deg, n) = (DEG as i32, N as i32);
    let mut b = stream.launch_builder(&f);
    b.arg(&d_coeffs).arg(&deg).arg(&d_x).arg(&d_y).arg(&n);
    let launched = unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)) }; // EXPECT: uninitialized_device_read
    unsafe {
        rcs.push(sys::cuMemcpyDtoH_v2(ys.as_mut_ptr() as *mut c_void, d_y, N * 4));
        rcs.push(sys::cuMemFree_v2(d_coeffs));
        rcs.push(sys::cuMemFree_v2(d_x));
        rcs.push(sys::cuMemFree_v2(d_y));
    }
    launched?;
    if rcs.iter().any(|r| *r != CUresult::CUDA_SUCCESS) {
        return Err("poly eval failed".into());
    }
    Ok(ys)
}
