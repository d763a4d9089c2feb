//@no-rustfix
// A user's pinned-memory wrapper over the raw driver API (`cuMemAllocHost`, `cuMemHostAlloc`):
// the memory stays pinned through the struct and its `as_slice`/`as_mut_slice` views, so an
// async copy into it is in flight until the stream is synchronized.
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys::{self as cu, CUdeviceptr, CUstream};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

struct PinnedBuf {
    ptr: *mut f32,
    len: usize,
}

impl PinnedBuf {
    fn new(len: usize) -> Self {
        let mut p: *mut c_void = null_mut();
        unsafe { cu::cuMemAllocHost_v2(&mut p, len * 4) };
        PinnedBuf { ptr: p.cast(), len }
    }

    fn with_flags(len: usize, flags: u32) -> Self {
        let mut p: *mut c_void = null_mut();
        unsafe { cu::cuMemHostAlloc(&mut p, len * 4, flags) };
        PinnedBuf { ptr: p.cast(), len }
    }

    fn as_slice(&self) -> &[f32] {
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    fn as_mut_slice(&mut self) -> &mut [f32] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for PinnedBuf {
    fn drop(&mut self) {
        unsafe { cu::cuMemFreeHost(self.ptr.cast()) };
    }
}

fn fires_readback_into_the_wrapper_read_before_the_sync(s: CUstream, d: CUdeviceptr) -> f32 {
    let mut host = PinnedBuf::new(N);
    unsafe { cu::cuMemcpyDtoHAsync_v2(host.as_mut_slice().as_mut_ptr().cast(), d, BYTES, s) };
    let first = host.as_slice()[0];
    //~^ missing_sync
    unsafe { cu::cuStreamSynchronize(s) };
    first
}

fn fires_upload_from_the_wrapper_refilled_before_the_sync(s: CUstream, d: CUdeviceptr) {
    let mut host = PinnedBuf::with_flags(N, 0);
    unsafe { cu::cuMemcpyHtoDAsync_v2(d, host.as_slice().as_ptr().cast(), BYTES, s) };
    host.as_mut_slice().fill(1.0);
    //~^ missing_sync
    unsafe { cu::cuStreamSynchronize(s) };
}

fn ok_readback_into_the_wrapper_read_after_the_sync(s: CUstream, d: CUdeviceptr) -> f32 {
    let mut host = PinnedBuf::new(N);
    unsafe { cu::cuMemcpyDtoHAsync_v2(host.as_mut_slice().as_mut_ptr().cast(), d, BYTES, s) };
    unsafe { cu::cuStreamSynchronize(s) };
    host.as_slice()[0]
}

fn ok_the_wrapper_is_pinned_so_the_copy_is_no_pageable_one(s: CUstream, d: CUdeviceptr) {
    let host = PinnedBuf::new(N);
    unsafe { cu::cuMemcpyHtoDAsync_v2(d, host.as_slice().as_ptr().cast(), BYTES, s) };
    unsafe { cu::cuStreamSynchronize(s) };
}

fn main() {}
