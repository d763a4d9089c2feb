//! `C = A B` for a tall-and-wide right-hand side that does not fit the device at once:
//! `B` is streamed through the device a block of columns at a time. Uploads go on a copy
//! stream, the products on a compute stream bound to the cuBLAS handle, and each block of
//! `C` is appended to the result once it is back on the host.

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

/// `a` is `m x k`, `b` is `k x n`, both column-major; returns `C`, `m x n` column-major.
pub fn multiply_in_blocks(
    a: &[f32],
    b: &[f32],
    m: usize,
    k: usize,
    n: usize,
    block_cols: usize,
) -> Result<Vec<f32>> {
    assert_eq!(a.len(), m * k);
    assert_eq!(b.len(), k * n);
    assert!(block_cols > 0);

    let _ctx = CudaContext::new(0)?;
    let f = std::mem::size_of::<f32>();

    let mut copy_stream: sys::CUstream = ptr::null_mut();
    let mut compute_stream: sys::CUstream = ptr::null_mut();
    unsafe {
        let flags = sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32;
        sys::cuStreamCreate(&mut copy_stream, flags).result()?;
        sys::cuStreamCreate(&mut compute_stream, flags).result()?;
    }

    let mut handle: blas::cublasHandle_t = ptr::null_mut();
    unsafe {
        blas::cublasCreate_v2(&mut handle).result()?;
        blas::cublasSetStream_v2(handle, compute_stream as blas::cudaStream_t).result()?;
    }

    let mut d_a: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_a, m * k * f) }.result()?;
    let _free_a = DeviceAlloc(d_a);
    let mut d_b: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_b, k * block_cols * f) }.result()?;
    let _free_b = DeviceAlloc(d_b);
    let mut d_c: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_c, m * block_cols * f) }.result()?;
    let _free_c = DeviceAlloc(d_c);

    let h_a = unsafe { result::malloc_host(m * k * f, 0)? } as *mut f32;
    let _free_ha = PinnedAlloc(h_a as *mut c_void);
    let h_b = unsafe { result::malloc_host(k * n * f, 0)? } as *mut f32;
    let _free_hb = PinnedAlloc(h_b as *mut c_void);
    let h_c = unsafe { result::malloc_host(m * block_cols * f, 0)? } as *mut f32;
    let _free_hc = PinnedAlloc(h_c as *mut c_void);

    unsafe {
        std::slice::from_raw_parts_mut(h_a, m * k).copy_from_slice(a);
        std::slice::from_raw_parts_mut(h_b, k * n).copy_from_slice(b);
        sys::cuMemcpyHtoDAsync_v2(d_a, h_a as *const c_void, m * k * f, compute_stream).result()?;
    }

    let (mi, ki) = (m as i32, k as i32);
    let one = 1.0f32;
    let zero = 0.0f32;
    let mut product = Vec::with_capacity(m * n);
    let mut first = 0;
    while first < n {
        let cols = block_cols.min(n - first);
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(
                d_b,
                h_b.add(first * k) as *const c_void,
                k * cols * f,
                copy_stream,
            )
            .result()?;

            blas::cublasSgemm_v2( // EXPECT: missing_sync
                handle,
                blas::cublasOperation_t::CUBLAS_OP_N,
                blas::cublasOperation_t::CUBLAS_OP_N,
                mi,
                cols as i32,
                ki,
                &one,
                d_a as *const f32,
                mi,
                d_b as *const f32,
                ki,
                &zero,
                d_c as *mut f32,
                mi,
            )
            .result()?;

            sys::cuMemcpyDtoHAsync_v2(h_c as *mut c_void, d_c, m * cols * f, compute_stream)
                .result()?;
            sys::cuStreamSynchronize(compute_stream).result()?;
            product.extend_from_slice(std::slice::from_raw_parts(h_c, m * cols));
        }
        first += cols;
    }

    unsafe {
        sys::cuStreamSynchronize(copy_stream).result()?;
        blas::cublasDestroy_v2(handle).result()?;
        sys::cuStreamDestroy_v2(copy_stream).result()?;
        sys::cuStreamDestroy_v2(compute_stream).result()?;
    }
    Ok(product)
}
