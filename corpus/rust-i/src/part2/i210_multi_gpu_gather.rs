//! case: multi-GPU shard gather for a distributed scan (cudarc's runtime sys bindings, one host thread per GPU): each shard's partial aggregates are copied with cudaMemcpyAsync into a slice of one big Vec (pageable), then each stream is synchronized
//! expect: pageable_async_copy=1

use cudarc::runtime::sys::{self, cudaError_t, cudaMemcpyKind, cudaStream_t};
use std::ffi::c_void;
use std::thread;

pub struct Shard {
    pub device: i32,
    pub stream: cudaStream_t,
    /// cudaMalloc'd partial aggregates on `device`.
    pub partials: *mut f64,
    pub len: usize,
}

unsafe impl Send for Shard {}
unsafe impl Sync for Shard {}

#[derive(Debug)]
pub struct GatherError {
    pub device: i32,
    pub code: cudaError_t,
}

fn rt(device: i32, code: cudaError_t) -> Result<(), GatherError> {
    if code == cudaError_t::cudaSuccess { Ok(()) } else { Err(GatherError { device, code }) }
}

fn gather_one(shard: &Shard, out: &mut [f64]) -> Result<(), GatherError> {
    unsafe {
        rt(shard.device, sys::cudaSetDevice(shard.device))?;
        let bytes = shard.len * std::mem::size_of::<f64>();
        rt(shard.device, sys::cudaMemcpyAsync(out.as_mut_ptr() as *mut c_void, shard.partials as *const c_void, bytes, cudaMemcpyKind::cudaMemcpyDeviceToHost, shard.stream))?; // EXPECT: pageable_async_copy
        rt(shard.device, sys::cudaStreamSynchronize(shard.stream))
    }
}

/// Concatenates every shard's partials, in shard order.
pub fn gather(shards: &[Shard]) -> Result<Vec<f64>, GatherError> {
    let total: usize = shards.iter().map(|s| s.len).sum();
    let mut all = vec![0.0f64; total];
    let mut rest: &mut [f64] = &mut all;
    let mut parts = Vec::with_capacity(shards.len());
    for s in shards {
        let (head, tail) = rest.split_at_mut(s.len);
        parts.push(head);
        rest = tail;
    }
    thread::scope(|scope| {
        let handles: Vec<_> = shards
            .iter()
            .zip(parts)
            .map(|(shard, out)| scope.spawn(move || gather_one(shard, out)))
            .collect();
        handles.into_iter().try_for_each(|h| h.join().expect("gather thread panicked"))
    })?;
    Ok(all)
}

/// Global mean over all shards' partial sums (each partial is (sum, count) interleaved).
pub fn global_mean(shards: &[Shard]) -> Result<f64, GatherError> {
    let all = gather(shards)?;
    let (sum, count) = all.chunks_exact(2).fold((0.0, 0.0), |(s, c), p| (s + p[0], c + p[1]));
    Ok(if count > 0.0 { sum / count } else { 0.0 })
}
