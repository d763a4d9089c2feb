//! case: near miss: allocations made in a loop are pushed into a pool struct's Vec; the pool's Drop frees every one
//! expect: none

use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use std::sync::Arc;

const CHUNK: usize = 1 << 20;

pub struct ChunkPool {
    _ctx: Arc<CudaContext>,
    chunks: Vec<sys::CUdeviceptr>,
}

impl ChunkPool {
    pub fn with_chunks(count: usize) -> Self {
        let ctx = CudaContext::new(0).unwrap();
        ctx.bind_to_thread().unwrap();
        let mut chunks = Vec::with_capacity(count);
        for _ in 0..count {
            let mut p: sys::CUdeviceptr = 0;
            unsafe {
                sys::cuMemAlloc_v2(&mut p, CHUNK).result().unwrap();
                sys::cuMemsetD8_v2(p, 0, CHUNK).result().unwrap();
            }
            chunks.push(p);
        }
        ChunkPool { _ctx: ctx, chunks }
    }

    pub fn len(&self) -> usize {
        self.chunks.len()
    }
}

impl Drop for ChunkPool {
    fn drop(&mut self) {
        for &p in &self.chunks {
            unsafe {
                sys::cuMemFree_v2(p);
            }
        }
    }
}

pub fn main_like() {
    let pool = ChunkPool::with_chunks(8);
    println!("{} chunks", pool.len());
}
