//! Damped Richardson iteration for a dense system `A x = b`:
//! `r = b - A x`, stop once `|r|` is small, else `x += omega * r`.
//! Everything runs through cuBLAS on the solver's own stream; the squared residual norm is
//! produced on the device (device pointer mode) so the iteration does not stall on it.

use std::error::Error;
use std::ffi::c_void;
use std::ptr;

use cudarc::cublas::sys as blas;
use cudarc::driver::{result, sys, CudaContext};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

struct DeviceAlloc(sys::CUdeviceptr);

impl Drop for DeviceAlloc {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemFree_v2(self.0);
        }
    }
}

struct PinnedAlloc(*mut c_void);

impl Drop for PinnedAlloc {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemFreeHost(self.0);
        }
    }
}

pub struct SolveReport {
    pub x: Vec<f32>,
    pub iterations: usize,
    pub residual: f32,
}

/// `a` is `n x n` column-major.
pub fn richardson_solve(
    a: &[f32],
    b: &[f32],
    n: usize,
    omega: f32,
    tol: f32,
    max_iter: usize,
) -> Result<SolveReport> {
    assert_eq!(a.len(), n * n);
    assert_eq!(b.len(), n);

    let _ctx = CudaContext::new(0)?;
    let f = std::mem::size_of::<f32>();
    let a_bytes = n * n * f;
    let v_bytes = n * f;

    let mut stream: sys::CUstream = ptr::null_mut();
    unsafe {
        sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32)
            .result()?;
    }

    let mut d_a: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_a, a_bytes) }.result()?;
    let _free_a = DeviceAlloc(d_a);
    let mut d_b: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_b, v_bytes) }.result()?;
    let _free_b = DeviceAlloc(d_b);
    let mut d_x: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_x, v_bytes) }.result()?;
    let _free_x = DeviceAlloc(d_x);
    let mut d_r: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_r, v_bytes) }.result()?;
    let _free_r = DeviceAlloc(d_r);
    let mut d_rr: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_rr, f) }.result()?;
    let _free_rr = DeviceAlloc(d_rr);

    let h_a = unsafe { result::malloc_host(a_bytes, 0)? } as *mut f32;
    let _free_ha = PinnedAlloc(h_a as *mut c_void);
    let h_vec = unsafe { result::malloc_host(v_bytes, 0)? } as *mut f32;
    let _free_hvec = PinnedAlloc(h_vec as *mut c_void);

    unsafe {
        std::slice::from_raw_parts_mut(h_a, n * n).copy_from_slice(a);
        std::slice::from_raw_parts_mut(h_vec, n).copy_from_slice(b);
        sys::cuMemcpyHtoDAsync_v2(d_a, h_a as *const c_void, a_bytes, stream).result()?;
        sys::cuMemcpyHtoDAsync_v2(d_b, h_vec as *const c_void, v_bytes, stream).result()?;
        sys::cuMemsetD32Async(d_x, 0, n, stream).result()?;
    }

    let mut handle: blas::cublasHandle_t = ptr::null_mut();
    unsafe {
        blas::cublasCreate_v2(&mut handle).result()?;
        blas::cublasSetStream_v2(handle, stream as blas::cudaStream_t).result()?;
    }

    let ni = n as i32;
    let one = 1.0f32;
    let minus_one = -1.0f32;
    let mut iterations = 0;
    let mut residual = f32::INFINITY;

    while iterations < max_iter {
        let mut rr = 0.0f32;
        unsafe {
            // r = b - A x
            blas::cublasScopy_v2(handle, ni, d_b as *const f32, 1, d_r as *mut f32, 1).result()?;
            blas::cublasSgemv_v2(
                handle,
                blas::cublasOperation_t::CUBLAS_OP_N,
                ni,
                ni,
                &minus_one,
                d_a as *const f32,
                ni,
                d_x as *const f32,
                1,
                &one,
                d_r as *mut f32,
                1,
            )
            .result()?;

            blas::cublasSetPointerMode_v2(handle, blas::cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE)
                .result()?;
            blas::cublasSdot_v2(handle, ni, d_r as *const f32, 1, d_r as *const f32, 1, d_rr as *mut f32)
                .result()?;
            blas::cublasSetPointerMode_v2(handle, blas::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST)
                .result()?;

            sys::cuMemcpyDtoH_v2(&mut rr as *mut f32 as *mut c_void, d_rr, f).result()?; // EXPECT: missing_sync
        }

        residual = rr.sqrt();
        if residual < tol {
            break;
        }

        unsafe {
            blas::cublasSaxpy_v2(handle, ni, &omega, d_r as *const f32, 1, d_x as *mut f32, 1)
                .result()?;
        }
        iterations += 1;
    }

    unsafe {
        sys::cuMemcpyDtoHAsync_v2(h_vec as *mut c_void, d_x, v_bytes, stream).result()?;
        sys::cuStreamSynchronize(stream).result()?;
    }
    let x = unsafe { std::slice::from_raw_parts(h_vec, n) }.to_vec();

    unsafe {
        blas::cublasDestroy_v2(handle).result()?;
        sys::cuStreamDestroy_v2(stream).result()?;
    }
    Ok(SolveReport { x, iterations, residual })
}
