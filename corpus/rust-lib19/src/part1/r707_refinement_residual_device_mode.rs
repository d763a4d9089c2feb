//! Residual check of an iterative-refinement step: r = b - A x with raw cuBLAS on the solver's
//! non-blocking stream, then ||r||_2. The norm is written straight into a mapped pinned scalar
//! (`CUBLAS_POINTER_MODE_DEVICE`) so that no separate device-to-host copy is needed.

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

pub enum Refinement {
    Converged(f32),
    NeedsAnotherStep(f32),
}

fn laplacian_1d(a: &mut [f32], n: usize) {
    for col in 0..n {
        for row in 0..n {
            a[col * n + row] = if row == col {
                2.0
            } else if row + 1 == col || col + 1 == row {
                -1.0
            } else {
                0.0
            };
        }
    }
}

pub fn refinement_residual(n: usize, tol: f32) -> Result<Refinement, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;

    let mut stream: cu::CUstream = std::ptr::null_mut();
    unsafe { cu::cuStreamCreate(&mut stream, cu::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }
        .result()?;
    let handle = blas::create_handle()?;
    unsafe { blas_sys::cublasSetStream_v2(handle, stream as _) }.result()?;

    let d_a = DeviceBuffer { ptr: unsafe { drv::malloc_sync(n * n * F32)? }, len: n * n };
    let d_b = DeviceBuffer { ptr: unsafe { drv::malloc_sync(n * F32)? }, len: n };
    let d_x = DeviceBuffer { ptr: unsafe { drv::malloc_sync(n * F32)? }, len: n };
    let d_r = DeviceBuffer { ptr: unsafe { drv::malloc_sync(n * F32)? }, len: n };

    let h_a_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(n * n * F32, 0)? } as *mut f32, len: n * n };
    let h_b_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(n * F32, 0)? } as *mut f32, len: n };
    let h_x_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(n * F32, 0)? } as *mut f32, len: n };
    // One mapped float the device writes the norm into.
    let h_norm = PinnedBuffer {
        ptr: unsafe { drv::malloc_host(F32, cu::CU_MEMHOSTALLOC_DEVICEMAP)? } as *mut f32,
        len: 1,
    };
    let h_a: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_a_buf.ptr, n * n) };
    let h_b: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_b_buf.ptr, n) };
    let h_x: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_x_buf.ptr, n) };

    laplacian_1d(h_a, n);
    h_b.fill(1.0);
    for (i, v) in h_x.iter_mut().enumerate() {
        let t = (i + 1) as f32 / (n + 1) as f32;
        *v = 0.5 * (n + 1) as f32 * (n + 1) as f32 * t * (1.0 - t);
    }

    unsafe {
        cu::cuMemcpyHtoDAsync_v2(d_a.ptr, h_a.as_ptr() as *const c_void, n * n * F32, stream).result()?;
        cu::cuMemcpyHtoDAsync_v2(d_b.ptr, h_b.as_ptr() as *const c_void, n * F32, stream).result()?;
        cu::cuMemcpyHtoDAsync_v2(d_x.ptr, h_x.as_ptr() as *const c_void, n * F32, stream).result()?;
    }

    // r = b; r = -A x + r
    let minus_one = -1.0f32;
    let one = 1.0f32;
    unsafe {
        blas_sys::cublasScopy_v2(handle, n as i32, d_b.ptr as *const f32, 1, d_r.ptr as *mut f32, 1)
            .result()?;
        blas_sys::cublasSgemv_v2(
            handle,
            blas_sys::cublasOperation_t::CUBLAS_OP_N,
            n as i32,
            n as i32,
            &minus_one,
            d_a.ptr as *const f32,
            n as i32,
            d_x.ptr as *const f32,
            1,
            &one,
            d_r.ptr as *mut f32,
            1,
        )
        .result()?;
    }

    unsafe {
        blas_sys::cublasSetPointerMode_v2(handle, blas_sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE)
            .result()?;
        blas_sys::cublasSnrm2_v2(handle, n as i32, d_r.ptr as *const f32, 1, h_norm.ptr).result()?;
        blas_sys::cublasSetPointerMode_v2(handle, blas_sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST)
            .result()?;
    }

    let residual = unsafe { *h_norm.ptr }; // EXPECT: missing_sync
    let outcome = if residual <= tol {
        Refinement::Converged(residual)
    } else {
        Refinement::NeedsAnotherStep(residual)
    };

    unsafe {
        cu::cuStreamSynchronize(stream).result()?;
        blas::destroy_handle(handle)?;
        cu::cuStreamDestroy_v2(stream).result()?;
    }
    Ok(outcome)
}
