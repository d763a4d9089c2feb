//! case: per-GPU worker threads (spawned, then joined) each copy their shard's logits into a chunk of one portable pinned buffer and synchronize their stream before returning; the main thread reads the whole buffer only after every join
//! expect: none
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;

use cudarc::driver::{sys, CudaContext, CudaSlice, DriverError};

/// One device's share of the output, already computed on that device.
pub struct DeviceShard {
    pub ctx: Arc<CudaContext>,
    pub logits: CudaSlice<f32>,
}

/// The raw host address of a chunk, passed to a worker thread.
struct ChunkPtr(*mut f32, usize);
unsafe impl Send for ChunkPtr {}

impl ChunkPtr {
    /// SAFETY: the chunk is a disjoint part of a live pinned allocation.
    unsafe fn into_slice<'a>(self) -> &'a mut [f32] {
        unsafe { std::slice::from_raw_parts_mut(self.0, self.1) }
    }
}

pub fn gather_logits(shards: Vec<DeviceShard>) -> Result<Vec<(usize, f32)>, Box<dyn std::error::Error>> {
    let total: usize = shards.iter().map(|s| s.logits.len()).sum();
    let ctx0 = shards[0].ctx.clone();
    let mut host = unsafe { ctx0.alloc_pinned_with_flags::<f32>(total, sys::CU_MEMHOSTALLOC_PORTABLE)? };
    let base = host.as_mut_ptr()?;
    let (tx, rx) = mpsc::channel::<Result<usize, DriverError>>();

    let mut offset = 0usize;
    let workers: Vec<_> = shards
        .into_iter()
        .map(|shard| {
            let len = shard.logits.len();
            let chunk = ChunkPtr(unsafe { base.add(offset) }, len);
            offset += len;
            let tx = tx.clone();
            thread::spawn(move || {
                let r = (|| {
                    shard.ctx.bind_to_thread()?;
                    let stream = shard.logits.stream().clone();
                    let dst = unsafe { chunk.into_slice() };
                    stream.memcpy_dtoh(&shard.logits, dst)?;
                    stream.synchronize()?;
                    Ok(len)
                })();
                let _ = tx.send(r);
            })
        })
        .collect();
    drop(tx);
    for w in workers {
        w.join().expect("gather worker panicked");
    }
    let copied: usize = rx.iter().collect::<Result<Vec<_>, _>>()?.into_iter().sum();
    assert_eq!(copied, total);

    // Every worker synchronized its stream before it was joined.
    let all = unsafe { std::slice::from_raw_parts(base as *const f32, total) };
    let mut top: Vec<(usize, f32)> = all.iter().copied().enumerate().collect();
    top.sort_by(|a, b| b.1.total_cmp(&a.1));
    top.truncate(10);
    Ok(top)
}
