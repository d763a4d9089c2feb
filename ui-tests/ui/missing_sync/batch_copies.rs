//@no-rustfix
// Batch copies (`cuMemcpyBatchAsync`, `cudaMemcpyBatchAsync`) use host memory in stream order
// whatever its kind: destinations always, sources unless their `srcAccessOrder` is "during the
// API call". Pageable memory is not staged during the call as for `cuMemcpyHtoDAsync`, so
// writing, reading or freeing it before the stream is done races the copy. And pageable memory
// a caller page-locked (`cuMemHostRegister`) is in flight in a helper's copy too.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys::{self as cu, CUdeviceptr, CUmemcpyAttributes, CUmemcpySrcAccessOrder, CUstream};
use cudarc::runtime::sys as rt;

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

unsafe fn stream() -> CUstream {
    let mut s: CUstream = null_mut();
    unsafe { cu::cuStreamCreate(&mut s, 1) };
    s
}

unsafe fn buffer() -> CUdeviceptr {
    let mut d: CUdeviceptr = 0;
    unsafe { cu::cuMemAlloc_v2(&mut d, BYTES) };
    d
}

fn attributes(order: CUmemcpySrcAccessOrder) -> CUmemcpyAttributes {
    let mut attrs: CUmemcpyAttributes = unsafe { std::mem::zeroed() };
    attrs.srcAccessOrder = order;
    attrs
}

/// Uploads two host buffers in one batch, sources read in stream order.
unsafe fn upload_two(a: &[f32], b: &[f32], da: CUdeviceptr, db: CUdeviceptr, s: CUstream) {
    let mut dsts = [da, db];
    let mut srcs = [a.as_ptr() as CUdeviceptr, b.as_ptr() as CUdeviceptr];
    let mut sizes = [BYTES, BYTES];
    let mut attrs = attributes(CUmemcpySrcAccessOrder::CU_MEMCPY_SRC_ACCESS_ORDER_STREAM);
    let mut idx = [0usize];
    unsafe {
        cu::cuMemcpyBatchAsync_v2(dsts.as_mut_ptr(), srcs.as_mut_ptr(), sizes.as_mut_ptr(), 2, &mut attrs, idx.as_mut_ptr(), 1, s)
    };
}

unsafe fn upload_one(host: &[f32], d: CUdeviceptr, s: CUstream) {
    unsafe { cu::cuMemcpyHtoDAsync_v2(d, host.as_ptr() as *const c_void, host.len() * 4, s) };
}

fn fires_pageable_source_refilled_before_the_stream_is_done() {
    unsafe {
        let s = stream();
        let (da, db) = (buffer(), buffer());
        let mut a = vec![1.0f32; N];
        let b = vec![2.0f32; N];
        upload_two(&a, &b, da, db, s);
        a.fill(3.0);
        //~^ missing_sync
        cu::cuStreamSynchronize(s);
    }
}

fn fires_any_order_malloc_source_freed_before_the_stream_is_done() {
    unsafe {
        let s = stream();
        let d = buffer();
        let h = libc::malloc(BYTES);
        let mut dsts = [d];
        let mut srcs = [h as CUdeviceptr];
        let mut sizes = [BYTES];
        let mut attrs: CUmemcpyAttributes = std::mem::zeroed();
        attrs.srcAccessOrder = CUmemcpySrcAccessOrder::CU_MEMCPY_SRC_ACCESS_ORDER_ANY;
        let mut idx = [0usize];
        cu::cuMemcpyBatchAsync_v2(dsts.as_mut_ptr(), srcs.as_mut_ptr(), sizes.as_mut_ptr(), 1, &mut attrs, idx.as_mut_ptr(), 1, s);
        libc::free(h);
        //~^ missing_sync
        cu::cuStreamSynchronize(s);
    }
}

fn fires_pageable_destination_read_before_the_stream_is_done() -> f32 {
    unsafe {
        let s = stream();
        let d = buffer();
        let mut out = vec![0.0f32; N];
        let mut dsts = [out.as_mut_ptr() as CUdeviceptr];
        let mut srcs = [d];
        let mut sizes = [BYTES];
        let mut attrs = attributes(CUmemcpySrcAccessOrder::CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL);
        let mut idx = [0usize];
        cu::cuMemcpyBatchAsync_v2(dsts.as_mut_ptr(), srcs.as_mut_ptr(), sizes.as_mut_ptr(), 1, &mut attrs, idx.as_mut_ptr(), 1, s);
        let first = out[0];
        //~^ missing_sync
        cu::cuStreamSynchronize(s);
        first
    }
}

fn fires_runtime_batch_source_refilled(host: &mut Vec<f32>) {
    unsafe {
        let mut s: rt::cudaStream_t = null_mut();
        rt::cudaStreamCreate(&mut s);
        let mut d: *mut c_void = null_mut();
        rt::cudaMalloc(&mut d, BYTES);
        let mut staging = vec![0.0f32; N];
        staging.copy_from_slice(host);
        let dsts = [d];
        let srcs = [staging.as_ptr() as *const c_void];
        let sizes = [BYTES];
        let mut attrs: rt::cudaMemcpyAttributes = std::mem::zeroed();
        attrs.srcAccessOrder = rt::cudaMemcpySrcAccessOrder::cudaMemcpySrcAccessOrderStream;
        let mut idx = [0usize];
        rt::cudaMemcpyBatchAsync(dsts.as_ptr(), srcs.as_ptr(), sizes.as_ptr(), 1, &mut attrs, idx.as_mut_ptr(), 1, s);
        staging[0] = 0.0;
        //~^ missing_sync
        rt::cudaStreamSynchronize(s);
    }
}

fn fires_caller_registered_vec_written_after_a_helpers_copy() {
    unsafe {
        let s = stream();
        let d = buffer();
        let mut v = vec![1.0f32; N];
        cu::cuMemHostRegister_v2(v.as_mut_ptr() as *mut c_void, BYTES, 0);
        upload_one(&v, d, s);
        v[0] = 2.0;
        //~^ missing_sync
        cu::cuStreamSynchronize(s);
        cu::cuMemHostUnregister(v.as_mut_ptr() as *mut c_void);
    }
}

fn ok_batch_source_refilled_after_the_stream_is_done() {
    unsafe {
        let s = stream();
        let (da, db) = (buffer(), buffer());
        let mut a = vec![1.0f32; N];
        let b = vec![2.0f32; N];
        upload_two(&a, &b, da, db, s);
        cu::cuStreamSynchronize(s);
        a.fill(3.0);
    }
}

fn ok_source_read_during_the_call_refilled_at_once() {
    unsafe {
        let s = stream();
        let d = buffer();
        let mut h = vec![1.0f32; N];
        let mut dsts = [d];
        let mut srcs = [h.as_ptr() as CUdeviceptr];
        let mut sizes = [BYTES];
        let mut attrs = attributes(CUmemcpySrcAccessOrder::CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL);
        let mut idx = [0usize];
        cu::cuMemcpyBatchAsync_v2(dsts.as_mut_ptr(), srcs.as_mut_ptr(), sizes.as_mut_ptr(), 1, &mut attrs, idx.as_mut_ptr(), 1, s);
        h.fill(2.0);
        cu::cuStreamSynchronize(s);
    }
}

#[cfg_attr(cuda_lint, allow(cuda_lint::pageable_async_copy))]
fn ok_plain_async_copy_from_pageable_memory_is_staged_during_the_call() {
    // CUDA stages pageable memory before `cuMemcpyHtoDAsync` returns: slow, not a race
    // (`pageable_async_copy` says so).
    unsafe {
        let s = stream();
        let d = buffer();
        let mut v = vec![1.0f32; N];
        upload_one(&v, d, s);
        v[0] = 2.0;
        cu::cuStreamSynchronize(s);
    }
}

fn ok_destination_read_after_the_stream_is_done() -> f32 {
    unsafe {
        let s = stream();
        let d = buffer();
        let mut out = vec![0.0f32; N];
        let mut dsts = [out.as_mut_ptr() as CUdeviceptr];
        let mut srcs = [d];
        let mut sizes = [BYTES];
        let mut attrs = attributes(CUmemcpySrcAccessOrder::CU_MEMCPY_SRC_ACCESS_ORDER_STREAM);
        let mut idx = [0usize];
        cu::cuMemcpyBatchAsync_v2(dsts.as_mut_ptr(), srcs.as_mut_ptr(), sizes.as_mut_ptr(), 1, &mut attrs, idx.as_mut_ptr(), 1, s);
        cu::cuStreamSynchronize(s);
        out[0]
    }
}

fn ok_caller_registered_vec_written_after_the_wait() {
    unsafe {
        let s = stream();
        let d = buffer();
        let mut v = vec![1.0f32; N];
        cu::cuMemHostRegister_v2(v.as_mut_ptr() as *mut c_void, BYTES, 0);
        upload_one(&v, d, s);
        cu::cuStreamSynchronize(s);
        v[0] = 2.0;
        cu::cuMemHostUnregister(v.as_mut_ptr() as *mut c_void);
    }
}

fn main() {}
