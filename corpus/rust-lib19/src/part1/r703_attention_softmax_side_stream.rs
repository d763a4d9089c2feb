//! One attention head: scores = K^T Q / sqrt(d) with raw cuBLAS on the GEMM stream, then a
//! column softmax kernel on a post-processing stream, so that the next head's GEMM can overlap
//! the softmax. Q and K come from an init kernel; the score matrix is a raw `cuMemAlloc`
//! scratch buffer shared by the two stages.

use std::error::Error;
use std::ffi::c_void;

use cudarc::cublas::{result as blas, sys as blas_sys};
use cudarc::driver::{
    CudaContext, DevicePtr, LaunchConfig, PushKernelArg, result as drv, sys as cu,
};
use cudarc::nvrtc::compile_ptx;

const F32: usize = std::mem::size_of::<f32>();

const ATTENTION_KERNELS: &str = r#"
extern "C" __global__ void init_qk(float* q, float* k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        q[i] = __sinf(0.013f * (float)i);
        k[i] = __cosf(0.007f * (float)i);
    }
}

// scores is column-major (seq x seq): column j holds query j's scores against every key.
extern "C" __global__ void column_softmax(const float* scores, float* probs, int seq) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= seq) return;
    const float* col = scores + (size_t)j * seq;
    float* out = probs + (size_t)j * seq;
    float m = -3.402823466e+38f;
    for (int i = 0; i < seq; ++i) m = fmaxf(m, col[i]);
    float sum = 0.0f;
    for (int i = 0; i < seq; ++i) {
        float e = __expf(col[i] - m);
        out[i] = e;
        sum += e;
    }
    float inv = 1.0f / sum;
    for (int i = 0; i < seq; ++i) out[i] *= inv;
}
"#;

struct DeviceBuffer {
    ptr: cu::CUdeviceptr,
    len: usize,
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        unsafe {
            let _ = cu::cuCtxSynchronize();
            let _ = drv::free_sync(self.ptr);
        }
    }
}

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

fn columns_config(seq: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (seq.div_ceil(128) as u32, 1, 1),
        block_dim: (128, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Returns the mean attention entropy of the head (a diagnostic the caller logs).
pub fn attention_head_probs(seq: usize, head_dim: usize) -> Result<f32, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let gemm_stream = ctx.new_stream()?;
    let post_stream = ctx.new_stream()?;

    let module = ctx.load_module(compile_ptx(ATTENTION_KERNELS)?)?;
    let init_qk = module.load_function("init_qk")?;
    let column_softmax = module.load_function("column_softmax")?;

    let handle = blas::create_handle()?;
    unsafe { blas::set_stream(handle, gemm_stream.cu_stream() as _)? };

    let mut q = gemm_stream.alloc_zeros::<f32>(head_dim * seq)?;
    let mut k = gemm_stream.alloc_zeros::<f32>(head_dim * seq)?;
    let mut probs = post_stream.alloc_zeros::<f32>(seq * seq)?;
    let scores = DeviceBuffer { ptr: unsafe { drv::malloc_sync(seq * seq * F32)? }, len: seq * seq };
    let h_probs_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(seq * seq * F32, 0)? } as *mut f32, len: seq * seq };
    let h_probs: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_probs_buf.ptr, seq * seq) };

    let n_qk = (head_dim * seq) as i32;
    {
        let mut launch = gemm_stream.launch_builder(&init_qk);
        launch.arg(&mut q).arg(&mut k).arg(&n_qk);
        unsafe { launch.launch(LaunchConfig::for_num_elems(n_qk as u32)) }?;
    }

    let q_dev = q.device_ptr(&gemm_stream).0;
    let k_dev = k.device_ptr(&gemm_stream).0;

    let alpha = 1.0f32 / (head_dim as f32).sqrt();
    let beta = 0.0f32;
    unsafe {
        blas_sys::cublasSgemm_v2(
            handle,
            blas_sys::cublasOperation_t::CUBLAS_OP_T,
            blas_sys::cublasOperation_t::CUBLAS_OP_N,
            seq as i32,
            seq as i32,
            head_dim as i32,
            &alpha,
            k_dev as *const f32,
            head_dim as i32,
            q_dev as *const f32,
            head_dim as i32,
            &beta,
            scores.ptr as *mut f32,
            seq as i32,
        )
        .result()?;
    }

    let scores_dev = scores.ptr;
    let seq_i = seq as i32;
    {
        let mut launch = post_stream.launch_builder(&column_softmax);
        launch.arg(&scores_dev).arg(&mut probs).arg(&seq_i);
        unsafe { launch.launch(columns_config(seq)) }?; // EXPECT: missing_sync
    }

    post_stream.memcpy_dtoh(&probs, h_probs)?;
    post_stream.synchronize()?;

    let mut entropy = 0.0f32;
    for col in h_probs.chunks(seq) {
        entropy -= col.iter().filter(|p| **p > 0.0).map(|p| p * p.ln()).sum::<f32>();
    }

    gemm_stream.synchronize()?;
    unsafe { blas::destroy_handle(handle)? };
    Ok(entropy / seq as f32)
}
