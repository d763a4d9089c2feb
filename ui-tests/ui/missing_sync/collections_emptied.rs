//@no-rustfix
// Emptying a collection (`clear`, `truncate`) drops its elements where it is called, as
// `drop(vec)` would, and keeps its own buffer: a chunk whose `Drop` frees it in the order of
// another stream, while a copy into it may still run, races that copy.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // other lints' subject: the test code leaks, or reads memory it never wrote
use cudarc::driver::sys::{self, CUdeviceptr, CUstream};

struct Chunk {
    dev: CUdeviceptr,
    release_on: CUstream,
}

impl Drop for Chunk {
    fn drop(&mut self) {
        unsafe { sys::cuMemFreeAsync(self.dev, self.release_on) };
    }
}

unsafe fn stream() -> CUstream {
    let mut s = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut s, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) };
    s
}

fn chunks(n: usize, bytes: usize, release_on: CUstream) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    for _ in 0..n {
        let mut dev = 0;
        unsafe { sys::cuMemAlloc_v2(&mut dev, bytes) };
        chunks.push(Chunk { dev, release_on });
    }
    chunks
}

fn fires_chunks_cleared_before_the_wait(host: &[u8]) {
    unsafe {
        let (upload, release) = (stream(), stream());
        let mut pinned = std::ptr::null_mut();
        sys::cuMemAllocHost_v2(&mut pinned, host.len());
        let mut chunks = chunks(4, host.len(), release);
        for c in &chunks {
            sys::cuMemcpyHtoDAsync_v2(c.dev, pinned, host.len(), upload);
        }
        chunks.clear(); //~ missing_sync
        sys::cuStreamSynchronize(upload);
    }
}

fn ok_chunks_cleared_after_the_wait(host: &[u8]) {
    unsafe {
        let (upload, release) = (stream(), stream());
        let mut pinned = std::ptr::null_mut();
        sys::cuMemAllocHost_v2(&mut pinned, host.len());
        let mut chunks = chunks(4, host.len(), release);
        for c in &chunks {
            sys::cuMemcpyHtoDAsync_v2(c.dev, pinned, host.len(), upload);
        }
        sys::cuStreamSynchronize(upload);
        chunks.clear();
    }
}

fn ok_chunks_truncated_after_the_wait(host: &[u8]) {
    unsafe {
        let (upload, release) = (stream(), stream());
        let mut pinned = std::ptr::null_mut();
        sys::cuMemAllocHost_v2(&mut pinned, host.len());
        let mut chunks = chunks(4, host.len(), release);
        for c in &chunks {
            sys::cuMemcpyHtoDAsync_v2(c.dev, pinned, host.len(), upload);
        }
        sys::cuStreamSynchronize(upload);
        chunks.truncate(1);
    }
}

fn main() {}
