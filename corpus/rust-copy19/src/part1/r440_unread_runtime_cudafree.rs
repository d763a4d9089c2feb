//! case: runtime API allocation launched through cudarc: d_grad from cudaMalloc is written by a gradient kernel, the device is synchronized and cudaFree releases it without a copy back or any other read
//! expect: unread_kernel_output=1
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys::{self, cudaError_t, cudaMemcpyKind};
use std::ffi::c_void;
use std::ptr;

const N: usize = 1024;
const BYTES: usize = N * 4;

const GRAD_SRC: &str = r#"
extern "C" __global__ void mse_grad(const float* pred, const float* target, float* grad, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) grad[i] = 2.0f * (pred[i] - target[i]) / n;
}
"#;

pub fn gradient_step(pred: &[f32; N], target: &[f32; N]) -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(GRAD_SRC)?)?.load_function("mse_grad")?;

    let mut d_pred: *mut c_void = ptr::null_mut();
    let mut d_target: *mut c_void = ptr::null_mut();
    let mut d_grad: *mut c_void = ptr::null_mut();
    let mut errs = Vec::new();
    unsafe {
        errs.push(sys::cudaMalloc(&mut d_pred, BYTES));
        errs.push(sys::cudaMalloc(&mut d_target, BYTES));
        errs.push(sys::cudaMalloc(&mut d_grad, BYTES));
        errs.push(sys::cudaMemcpy(d_pred, pred.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice));
        errs.push(sys::cudaMemcpy(d_target, target.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice));
    }
    let (p, t, g) = (d_pred as CUdeviceptr, d_target as CUdeviceptr, d_grad as CUdeviceptr);
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&p).arg(&t).arg(&g).arg(&n);
    let launched = unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)) };
    unsafe {
        errs.push(sys::cudaDeviceSynchronize());
        errs.push(sys::cudaFree(d_pred));
        errs.push(sys::cudaFree(d_target));
        errs.push(sys::cudaFree(d_grad)); // EXPECT: unread_kernel_output
    }
    launched?;
    if errs.iter().any(|e| *e != cudaError_t::cudaSuccess) {
        return Err(format!("{errs:?}").into());
    }
    Ok(())
}
