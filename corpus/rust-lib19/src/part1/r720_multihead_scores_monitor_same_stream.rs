//! Multi-head attention scores, S_h = K_h^T Q_h for every head in one strided-batched GEMM on
//! the main stream. A telemetry hook logs the L1 mass of the scores (`cublasSasum`, host
//! pointer mode) through its own cuBLAS handle, so that telemetry never changes the main
//! handle's state; that handle is bound to the main stream, so it reads the scores in order.

use std::error::Error;
use std::ffi::c_void;

use cudarc::cublas::{result as blas, sys as blas_sys};
use cudarc::driver::{CudaContext, result as drv, sys as cu};

const F32: usize = std::mem::size_of::<f32>();

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

pub struct HeadsConfig {
    pub heads: usize,
    pub seq: usize,
    pub head_dim: usize,
}

pub struct ScoresReport {
    pub l1_mass: f32,
    pub max_score: f32,
}

pub fn multihead_scores_same_stream(cfg: HeadsConfig) -> Result<ScoresReport, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let (heads, seq, dh) = (cfg.heads, cfg.seq, cfg.head_dim);
    let qk_len = heads * dh * seq;
    let s_len = heads * seq * seq;

    let mut main: cu::CUstream = std::ptr::null_mut();
    unsafe { cu::cuStreamCreate(&mut main, cu::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;

    let main_blas = blas::create_handle()?;
    unsafe { blas::set_stream(main_blas, main as _)? };
    let telemetry_blas = blas::create_handle()?;
    unsafe { blas::set_stream(telemetry_blas, main as _)? };

    let d_q = DeviceBuffer { ptr: unsafe { drv::malloc_sync(qk_len * F32)? }, len: qk_len };
    let d_k = DeviceBuffer { ptr: unsafe { drv::malloc_sync(qk_len * F32)? }, len: qk_len };
    let d_s = DeviceBuffer { ptr: unsafe { drv::malloc_sync(s_len * F32)? }, len: s_len };

    let h_q_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(qk_len * F32, 0)? } as *mut f32, len: qk_len };
    let h_k_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(qk_len * F32, 0)? } as *mut f32, len: qk_len };
    let h_s_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(s_len * F32, 0)? } as *mut f32, len: s_len };
    let h_q: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_q_buf.ptr, qk_len) };
    let h_k: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_k_buf.ptr, qk_len) };
    let h_s: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_s_buf.ptr, s_len) };

    for (i, (q, k)) in h_q.iter_mut().zip(h_k.iter_mut()).enumerate() {
        *q = ((i % 29) as f32 - 14.0) / 14.0;
        *k = ((i % 31) as f32 - 15.0) / 15.0;
    }

    unsafe {
        cu::cuMemcpyHtoDAsync_v2(d_q.ptr, h_q.as_ptr() as *const c_void, qk_len * F32, main).result()?;
        cu::cuMemcpyHtoDAsync_v2(d_k.ptr, h_k.as_ptr() as *const c_void, qk_len * F32, main).result()?;
    }

    let alpha = 1.0 / (dh as f32).sqrt();
    let beta = 0.0f32;
    unsafe {
        blas_sys::cublasSgemmStridedBatched(
            main_blas,
            blas_sys::cublasOperation_t::CUBLAS_OP_T,
            blas_sys::cublasOperation_t::CUBLAS_OP_N,
            seq as i32,
            seq as i32,
            dh as i32,
            &alpha,
            d_k.ptr as *const f32,
            dh as i32,
            (dh * seq) as i64,
            d_q.ptr as *const f32,
            dh as i32,
            (dh * seq) as i64,
            &beta,
            d_s.ptr as *mut f32,
            seq as i32,
            (seq * seq) as i64,
            heads as i32,
        )
        .result()?;
    }

    // Telemetry: L1 mass of all heads' scores (host pointer mode: the call returns with it).
    let mut l1_mass = 0.0f32;
    unsafe { blas::sasum(telemetry_blas, s_len as i32, d_s.ptr as *const f32, 1, &mut l1_mass)? };

    unsafe {
        cu::cuMemcpyDtoHAsync_v2(h_s.as_mut_ptr() as *mut c_void, d_s.ptr, s_len * F32, main).result()?;
        cu::cuStreamSynchronize(main).result()?;
    }
    let max_score = h_s.iter().copied().fold(f32::NEG_INFINITY, f32::max);

    unsafe {
        blas::destroy_handle(main_blas)?;
        blas::destroy_handle(telemetry_blas)?;
        cu::cuStreamDestroy_v2(main).result()?;
    }
    Ok(ScoresReport { l1_mass, max_score })
}
