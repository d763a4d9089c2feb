//! case: a loss computation writes per-sample losses, a second kernel reduces them into a scalar that is copied back; the per-sample buffer is then freed (read by the reduction).
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;
use std::mem::size_of;

const LOSS_SRC: &str = r#"
extern "C" __global__ void sq_err(const float* pred, const float* target, float* loss, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float d = pred[i] - target[i]; loss[i] = d * d; }
}
extern "C" __global__ void sum_reduce(const float* x, float* total, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, x[i]);
}
"#;

const N: usize = 1 << 16;
const BYTES: usize = N * size_of::<f32>();

pub fn mse(pred: &[f32; N], target: &[f32; N]) -> Result<f32, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let module = ctx.load_module(compile_ptx(LOSS_SRC)?)?;
    let sq = module.load_function("sq_err")?;
    let red = module.load_function("sum_reduce")?;
    let mut total = 0.0f32;
    let (mut d_p, mut d_t, mut d_loss, mut d_total): (CUdeviceptr, CUdeviceptr, CUdeviceptr, CUdeviceptr) = (0, 0, 0, 0);
    let mut n = N as i32;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_p, BYTES);
        sys::cuMemAlloc_v2(&mut d_t, BYTES);
        sys::cuMemAlloc_v2(&mut d_loss, BYTES);
        sys::cuMemAlloc_v2(&mut d_total, size_of::<f32>());
        sys::cuMemcpyHtoD_v2(d_p, pred.as_ptr() as *const c_void, BYTES);
        sys::cuMemcpyHtoD_v2(d_t, target.as_ptr() as *const c_void, BYTES);
        sys::cuMemsetD32_v2(d_total, 0, 1);
        let mut p1: [*mut c_void; 4] = [
            &mut d_p as *mut CUdeviceptr as *mut c_void,
            &mut d_t as *mut CUdeviceptr as *mut c_void,
            &mut d_loss as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        sys::cuLaunchKernel(sq.cu_function(), (N / 256) as u32, 1, 1, 256, 1, 1, 0, std::ptr::null_mut(), p1.as_mut_ptr(), std::ptr::null_mut());
        let mut p2: [*mut c_void; 3] = [
            &mut d_loss as *mut CUdeviceptr as *mut c_void,
            &mut d_total as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        sys::cuLaunchKernel(red.cu_function(), (N / 256) as u32, 1, 1, 256, 1, 1, 0, std::ptr::null_mut(), p2.as_mut_ptr(), std::ptr::null_mut());
        sys::cuMemcpyDtoH_v2(&mut total as *mut f32 as *mut c_void, d_total, size_of::<f32>());
        sys::cuMemFree_v2(d_p);
        sys::cuMemFree_v2(d_t);
        sys::cuMemFree_v2(d_loss);
        sys::cuMemFree_v2(d_total);
    }
    Ok(total / N as f32)
}
