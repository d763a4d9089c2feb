//! Conjugate gradient on a dense SPD matrix with raw cuBLAS on a non-blocking stream. Every
//! scalar (p.Ap, r.r) comes back through the default host pointer mode: cuBLAS returns from
//! `cublasSdot` only once the host variable holds the result, so the loop branches on it
//! right away. The solution is copied back once at the end.

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

pub struct CgReport {
    pub iterations: usize,
    pub residual: f32,
    pub solution: Vec<f32>,
}

fn spd_matrix(a: &mut [f32], n: usize) {
    for col in 0..n {
        for row in 0..n {
            let d = row.abs_diff(col) as f32;
            a[col * n + row] = if row == col { n as f32 } else { 1.0 / (1.0 + d) };
        }
    }
}

pub fn conjugate_gradient(n: usize, max_iter: usize, tol: f32) -> Result<CgReport, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;

    let mut stream: cu::CUstream = std::ptr::null_mut();
    unsafe { cu::cuStreamCreate(&mut stream, cu::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }
        .result()?;
    let handle = blas::create_handle()?;
    unsafe { blas::set_stream(handle, stream as _)? };

    let d_a = DeviceBuffer { ptr: unsafe { drv::malloc_sync(n * n * F32)? }, len: n * n };
    let d_b = DeviceBuffer { ptr: unsafe { drv::malloc_sync(n * F32)? }, len: n };
    let d_x = DeviceBuffer { ptr: unsafe { drv::malloc_sync(n * F32)? }, len: n };
    let d_r = DeviceBuffer { ptr: unsafe { drv::malloc_sync(n * F32)? }, len: n };
    let d_p = DeviceBuffer { ptr: unsafe { drv::malloc_sync(n * F32)? }, len: n };
    let d_ap = DeviceBuffer { ptr: unsafe { drv::malloc_sync(n * F32)? }, len: n };

    let h_a_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(n * n * F32, 0)? } as *mut f32, len: n * n };
    let h_b_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(n * F32, 0)? } as *mut f32, len: n };
    let h_x_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(n * F32, 0)? } as *mut f32, len: n };
    let h_a: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_a_buf.ptr, n * n) };
    let h_b: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_b_buf.ptr, n) };
    let h_x: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_x_buf.ptr, n) };

    spd_matrix(h_a, n);
    for (i, v) in h_b.iter_mut().enumerate() {
        *v = 1.0 + (i % 3) as f32;
    }

    let (h, ni) = (handle, n as i32);
    unsafe {
        cu::cuMemcpyHtoDAsync_v2(d_a.ptr, h_a.as_ptr() as *const c_void, n * n * F32, stream).result()?;
        cu::cuMemcpyHtoDAsync_v2(d_b.ptr, h_b.as_ptr() as *const c_void, n * F32, stream).result()?;
        cu::cuMemsetD32Async(d_x.ptr, 0, n, stream).result()?;
        // x0 = 0, so r0 = p0 = b.
        blas_sys::cublasScopy_v2(h, ni, d_b.ptr as *const f32, 1, d_r.ptr as *mut f32, 1).result()?;
        blas_sys::cublasScopy_v2(h, ni, d_b.ptr as *const f32, 1, d_p.ptr as *mut f32, 1).result()?;
    }

    let mut rr = 0.0f32;
    unsafe { blas_sys::cublasSdot_v2(h, ni, d_r.ptr as *const f32, 1, d_r.ptr as *const f32, 1, &mut rr) }
        .result()?;

    let (one, zero) = (1.0f32, 0.0f32);
    let mut iterations = 0;
    while iterations < max_iter && rr.sqrt() > tol {
        let mut p_ap = 0.0f32;
        unsafe {
            blas_sys::cublasSgemv_v2(
                h,
                blas_sys::cublasOperation_t::CUBLAS_OP_N,
                ni,
                ni,
                &one,
                d_a.ptr as *const f32,
                ni,
                d_p.ptr as *const f32,
                1,
                &zero,
                d_ap.ptr as *mut f32,
                1,
            )
            .result()?;
            blas_sys::cublasSdot_v2(h, ni, d_p.ptr as *const f32, 1, d_ap.ptr as *const f32, 1, &mut p_ap)
                .result()?;
        }
        if p_ap <= 0.0 {
            break; // lost positive definiteness (round-off): keep the current iterate
        }
        let alpha = rr / p_ap;
        let minus_alpha = -alpha;
        let mut rr_next = 0.0f32;
        unsafe {
            blas_sys::cublasSaxpy_v2(h, ni, &alpha, d_p.ptr as *const f32, 1, d_x.ptr as *mut f32, 1).result()?;
            blas_sys::cublasSaxpy_v2(h, ni, &minus_alpha, d_ap.ptr as *const f32, 1, d_r.ptr as *mut f32, 1)
                .result()?;
            blas_sys::cublasSdot_v2(h, ni, d_r.ptr as *const f32, 1, d_r.ptr as *const f32, 1, &mut rr_next)
                .result()?;
        }
        let beta = rr_next / rr;
        unsafe {
            blas_sys::cublasSscal_v2(h, ni, &beta, d_p.ptr as *mut f32, 1).result()?;
            blas_sys::cublasSaxpy_v2(h, ni, &one, d_r.ptr as *const f32, 1, d_p.ptr as *mut f32, 1).result()?;
        }
        rr = rr_next;
        iterations += 1;
    }

    unsafe {
        cu::cuMemcpyDtoHAsync_v2(h_x.as_mut_ptr() as *mut c_void, d_x.ptr, n * F32, stream).result()?;
        cu::cuStreamSynchronize(stream).result()?;
    }
    let report = CgReport { iterations, residual: rr.sqrt(), solution: h_x.to_vec() };

    unsafe {
        blas::destroy_handle(handle)?;
        cu::cuStreamDestroy_v2(stream).result()?;
    }
    Ok(report)
}
