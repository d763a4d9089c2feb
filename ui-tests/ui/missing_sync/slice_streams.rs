//@no-rustfix
// `slice.stream()` of a slice made elsewhere (a parameter's) is a stream not known here, but one
// stream: a copy enqueued on it and a wait on it are on the same stream, also inside a worker
// thread that is joined before the read.
use std::sync::Arc;
use std::thread;

use cudarc::driver::{CudaContext, CudaSlice};

struct Chunk(*mut f32, usize);
unsafe impl Send for Chunk {}
impl Chunk {
    unsafe fn slice(self) -> &'static mut [f32] {
        unsafe { std::slice::from_raw_parts_mut(self.0, self.1) }
    }
}

fn ok_each_worker_waits_for_its_copy(ctx: &Arc<CudaContext>, shards: Vec<CudaSlice<f32>>, total: usize) -> f32 {
    let host = unsafe { ctx.alloc_pinned_with_flags::<f32>(total, 0).unwrap() };
    let base = host.as_ptr().unwrap() as *mut f32;
    let mut offset = 0;
    let workers: Vec<_> = shards
        .into_iter()
        .map(|logits| {
            let chunk = Chunk(unsafe { base.add(offset) }, logits.len());
            offset += logits.len();
            thread::spawn(move || {
                let stream = logits.stream().clone();
                let dst = unsafe { chunk.slice() };
                stream.memcpy_dtoh(&logits, dst).unwrap();
                stream.synchronize().unwrap();
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let all = unsafe { std::slice::from_raw_parts(base as *const f32, total) };
    all.iter().sum()
}

fn fires_no_worker_waits_for_its_copy(ctx: &Arc<CudaContext>, shards: Vec<CudaSlice<f32>>, total: usize) -> f32 {
    let host = unsafe { ctx.alloc_pinned_with_flags::<f32>(total, 0).unwrap() };
    let base = host.as_ptr().unwrap() as *mut f32;
    let mut offset = 0;
    let workers: Vec<_> = shards
        .into_iter()
        .map(|logits| {
            let chunk = Chunk(unsafe { base.add(offset) }, logits.len());
            offset += logits.len();
            thread::spawn(move || {
                let stream = logits.stream().clone();
                let dst = unsafe { chunk.slice() };
                stream.memcpy_dtoh(&logits, dst).unwrap();
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let all = unsafe { std::slice::from_raw_parts(base as *const f32, total) };
    all.iter().sum() //~ missing_sync
}

fn main() {}
