//! Two-tower retrieval: two request lanes score their query against the same item-embedding
//! table (scores = E^T q), each lane with its own cuBLAS handle on its own non-blocking stream.
//! The table is uploaded once; after that both lanes only read it.

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

fn argmax(scores: &[f32]) -> usize {
    let mut best = 0;
    for (i, s) in scores.iter().enumerate() {
        if *s > scores[best] {
            best = i;
        }
    }
    best
}

/// Returns the best item for each lane's query.
pub fn retrieve_two_lanes(dim: usize, items: usize) -> Result<(usize, usize), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;

    let mut lane_a: cu::CUstream = std::ptr::null_mut();
    unsafe { cu::cuStreamCreate(&mut lane_a, cu::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let mut lane_b: cu::CUstream = std::ptr::null_mut();
    unsafe { cu::cuStreamCreate(&mut lane_b, cu::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;

    let blas_a = blas::create_handle()?;
    unsafe { blas::set_stream(blas_a, lane_a as _)? };
    let blas_b = blas::create_handle()?;
    unsafe { blas::set_stream(blas_b, lane_b as _)? };

    let d_table = DeviceBuffer { ptr: unsafe { drv::malloc_sync(dim * items * F32)? }, len: dim * items };
    let d_qa = DeviceBuffer { ptr: unsafe { drv::malloc_sync(dim * F32)? }, len: dim };
    let d_qb = DeviceBuffer { ptr: unsafe { drv::malloc_sync(dim * F32)? }, len: dim };
    let d_sa = DeviceBuffer { ptr: unsafe { drv::malloc_sync(items * F32)? }, len: items };
    let d_sb = DeviceBuffer { ptr: unsafe { drv::malloc_sync(items * F32)? }, len: items };

    let h_table_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(dim * items * F32, 0)? } as *mut f32, len: dim * items };
    let h_qa_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(dim * F32, 0)? } as *mut f32, len: dim };
    let h_qb_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(dim * F32, 0)? } as *mut f32, len: dim };
    let h_sa_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(items * F32, 0)? } as *mut f32, len: items };
    let h_sb_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(items * F32, 0)? } as *mut f32, len: items };
    let h_table: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_table_buf.ptr, dim * items) };
    let h_qa: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_qa_buf.ptr, dim) };
    let h_qb: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_qb_buf.ptr, dim) };
    let h_sa: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_sa_buf.ptr, items) };
    let h_sb: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_sb_buf.ptr, items) };

    for (i, v) in h_table.iter_mut().enumerate() {
        *v = (((i / dim) * 17 + (i % dim) * 5) % 23) as f32 / 23.0 - 0.5;
    }
    for d in 0..dim {
        h_qa[d] = if d % 2 == 0 { 1.0 } else { 0.0 };
        h_qb[d] = if d % 3 == 0 { -1.0 } else { 0.5 };
    }

    // The table is shared by both lanes: upload it on lane A and wait before either lane reads it.
    unsafe {
        cu::cuMemcpyHtoDAsync_v2(d_table.ptr, h_table.as_ptr() as *const c_void, dim * items * F32, lane_a).result()?;
        cu::cuStreamSynchronize(lane_a).result()?;
        cu::cuMemcpyHtoDAsync_v2(d_qa.ptr, h_qa.as_ptr() as *const c_void, dim * F32, lane_a).result()?;
        cu::cuMemcpyHtoDAsync_v2(d_qb.ptr, h_qb.as_ptr() as *const c_void, dim * F32, lane_b).result()?;
    }

    let (one, zero) = (1.0f32, 0.0f32);
    unsafe {
        blas_sys::cublasSgemv_v2(
            blas_a,
            blas_sys::cublasOperation_t::CUBLAS_OP_T,
            dim as i32,
            items as i32,
            &one,
            d_table.ptr as *const f32,
            dim as i32,
            d_qa.ptr as *const f32,
            1,
            &zero,
            d_sa.ptr as *mut f32,
            1,
        )
        .result()?;
        blas_sys::cublasSgemv_v2(
            blas_b,
            blas_sys::cublasOperation_t::CUBLAS_OP_T,
            dim as i32,
            items as i32,
            &one,
            d_table.ptr as *const f32,
            dim as i32,
            d_qb.ptr as *const f32,
            1,
            &zero,
            d_sb.ptr as *mut f32,
            1,
        )
        .result()?;
        cu::cuMemcpyDtoHAsync_v2(h_sa.as_mut_ptr() as *mut c_void, d_sa.ptr, items * F32, lane_a).result()?;
        cu::cuMemcpyDtoHAsync_v2(h_sb.as_mut_ptr() as *mut c_void, d_sb.ptr, items * F32, lane_b).result()?;
    }

    unsafe { cu::cuStreamSynchronize(lane_a) }.result()?;
    let best_a = argmax(h_sa);
    unsafe { cu::cuStreamSynchronize(lane_b) }.result()?;
    let best_b = argmax(h_sb);

    unsafe {
        blas::destroy_handle(blas_a)?;
        blas::destroy_handle(blas_b)?;
        cu::cuStreamDestroy_v2(lane_a).result()?;
        cu::cuStreamDestroy_v2(lane_b).result()?;
    }
    Ok((best_a, best_b))
}
