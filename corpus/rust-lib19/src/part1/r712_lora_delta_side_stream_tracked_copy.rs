//! LoRA adapter export: delta = B * A (rank r) is computed with cudarc's `CudaBlas`, moved to a
//! side stream so that it overlaps the main stream's work, and the delta is read back with
//! cudarc's own copy on the main stream: the context has two streams, so cudarc makes the main
//! stream wait for the GEMM's write of `delta` before copying it.

use std::error::Error;
use std::ffi::c_void;

use cudarc::cublas::{CudaBlas, Gemm, GemmConfig, sys as blas_sys};
use cudarc::driver::{CudaContext, result as drv, sys as cu};

const F32: usize = std::mem::size_of::<f32>();

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

pub struct LoraShape {
    pub d_out: usize,
    pub d_in: usize,
    pub rank: usize,
}

pub fn export_lora_delta_tracked(shape: LoraShape, scale: f32) -> Result<f32, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let main = ctx.new_stream()?;
    let side = ctx.new_stream()?;
    let mut blas = CudaBlas::new(main.clone())?;

    let (m, n, r) = (shape.d_out, shape.d_in, shape.rank);

    let h_b_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(m * r * F32, 0)? } as *mut f32, len: m * r };
    let h_a_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(r * n * F32, 0)? } as *mut f32, len: r * n };
    let h_delta_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(m * n * F32, 0)? } as *mut f32, len: m * n };
    let h_b: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_b_buf.ptr, m * r) };
    let h_a: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_a_buf.ptr, r * n) };
    let h_delta: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_delta_buf.ptr, m * n) };

    for (i, v) in h_b.iter_mut().enumerate() {
        *v = ((i % 11) as f32 - 5.0) * 0.01;
    }
    for (i, v) in h_a.iter_mut().enumerate() {
        *v = ((i % 7) as f32 - 3.0) * 0.02;
    }

    let mut lora_b = main.alloc_zeros::<f32>(m * r)?;
    let mut lora_a = main.alloc_zeros::<f32>(r * n)?;
    let mut delta = main.alloc_zeros::<f32>(m * n)?;
    main.memcpy_htod(&*h_b, &mut lora_b)?;
    main.memcpy_htod(&*h_a, &mut lora_a)?;

    // The delta GEMM goes to the side stream.
    unsafe { blas.set_stream(side.clone())? };
    let cfg = GemmConfig {
        transa: blas_sys::cublasOperation_t::CUBLAS_OP_N,
        transb: blas_sys::cublasOperation_t::CUBLAS_OP_N,
        m: m as i32,
        n: n as i32,
        k: r as i32,
        alpha: scale,
        lda: m as i32,
        ldb: r as i32,
        beta: 0.0f32,
        ldc: m as i32,
    };
    unsafe { blas.gemm(cfg, &lora_b, &lora_a, &mut delta) }?;

    main.memcpy_dtoh(&delta, h_delta)?;
    main.synchronize()?;

    let frobenius = h_delta.iter().map(|v| v * v).sum::<f32>().sqrt();

    side.synchronize()?;
    Ok(frobenius)
}
