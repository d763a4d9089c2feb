//! Linear scoring service: raw feature rows are standardized by a kernel on the preprocessing
//! stream, then scored with cudarc's `CudaBlas` (y = A w) on the BLAS stream. The kernels are
//! launched through a small argument table of raw device pointers, filled once at start-up so
//! that every launch reuses the same addresses.

use std::error::Error;
use std::ffi::c_void;

use cudarc::cublas::{CudaBlas, Gemv, GemvConfig, sys as blas_sys};
use cudarc::driver::{
    CudaContext, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg, result as drv, sys as cu,
};
use cudarc::nvrtc::compile_ptx;

const F32: usize = std::mem::size_of::<f32>();

const PREP_KERNELS: &str = r#"
extern "C" __global__ void standardize(const float* raw, float* out, float mean, float inv_std, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (raw[i] - mean) * inv_std;
}
"#;

struct PinnedBuffer {
    ptr: *mut f32,
    len: usize,
}

impl Drop for PinnedBuffer {
    fn drop(&mut self) {
        unsafe {
            let _ = cu::cuCtxSynchronize();
            let _ = drv::free_host(self.ptr as *mut c_void);
        }
    }
}

/// Raw addresses the preprocessing kernels are launched with.
struct PrepArgs {
    raw: cu::CUdeviceptr,
    standardized: cu::CUdeviceptr,
}

fn moments(values: &[f32]) -> (f32, f32) {
    let n = values.len().max(1) as f32;
    let mean = values.iter().sum::<f32>() / n;
    let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
    (mean, 1.0 / var.sqrt().max(1e-6))
}

pub fn score_rows(rows: usize, cols: usize) -> Result<Vec<f32>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let prep = ctx.new_stream()?;
    let scoring = ctx.new_stream()?;
    let blas = CudaBlas::new(scoring.clone())?;

    let module = ctx.load_module(compile_ptx(PREP_KERNELS)?)?;
    let standardize = module.load_function("standardize")?;

    let h_raw_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(rows * cols * F32, 0)? } as *mut f32, len: rows * cols };
    let h_w_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(cols * F32, 0)? } as *mut f32, len: cols };
    let h_y_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(rows * F32, 0)? } as *mut f32, len: rows };
    let h_raw: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_raw_buf.ptr, rows * cols) };
    let h_w: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_w_buf.ptr, cols) };
    let h_y: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_y_buf.ptr, rows) };

    for (i, v) in h_raw.iter_mut().enumerate() {
        *v = ((i * 37) % 101) as f32 * 0.5 + 3.0;
    }
    for (j, v) in h_w.iter_mut().enumerate() {
        *v = if j % 2 == 0 { 0.1 } else { -0.05 };
    }
    let (mean, inv_std) = moments(h_raw);

    let mut raw = prep.alloc_zeros::<f32>(rows * cols)?;
    let mut a = prep.alloc_zeros::<f32>(rows * cols)?;
    let mut w = scoring.alloc_zeros::<f32>(cols)?;
    let mut y = scoring.alloc_zeros::<f32>(rows)?;
    prep.memcpy_htod(&*h_raw, &mut raw)?;
    scoring.memcpy_htod(&*h_w, &mut w)?;

    let args = PrepArgs {
        raw: raw.device_ptr(&prep).0,
        standardized: a.device_ptr_mut(&prep).0,
    };

    let n = (rows * cols) as i32;
    {
        let mut launch = prep.launch_builder(&standardize);
        launch.arg(&args.raw).arg(&args.standardized).arg(&mean).arg(&inv_std).arg(&n);
        unsafe { launch.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    }

    let cfg = GemvConfig {
        trans: blas_sys::cublasOperation_t::CUBLAS_OP_N,
        m: rows as i32,
        n: cols as i32,
        alpha: 1.0f32,
        lda: rows as i32,
        incx: 1,
        beta: 0.0f32,
        incy: 1,
    };
    unsafe { blas.gemv(cfg, &a, &w, &mut y) }?; // EXPECT: missing_sync

    scoring.memcpy_dtoh(&y, h_y)?;
    scoring.synchronize()?;
    let scores = h_y.to_vec();

    prep.synchronize()?;
    Ok(scores)
}
