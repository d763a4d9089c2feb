//! case: a job pulled apart by partial moves (`let Job { host, .. } = job`) after a readback on a `LazyLock` context's stream; the stream is synchronized before the host buffer escapes
//! expect: none
use std::sync::LazyLock;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

static CTX: LazyLock<Context> = LazyLock::new(|| Context::new(0).expect("no CUDA device"));

pub struct Job {
    pub id: u64,
    pub stream: Stream,
    pub dev: DeviceBuffer<f32>,
    pub host: PinnedBuffer<f32>,
}

pub fn make_job(id: u64, dev: DeviceBuffer<f32>) -> Result<Job> {
    let host = CTX.alloc_pinned::<f32>(dev.len())?;
    Ok(Job { id, stream: CTX.new_stream()?, dev, host })
}

/// Enqueues the readback and hands the pinned result to the caller once it has landed.
pub fn finish(mut job: Job) -> Result<(u64, PinnedBuffer<f32>)> {
    // SAFETY: synchronized before `host` leaves this function.
    unsafe { job.stream.copy_dtoh_async(&mut job.host, &job.dev)? };
    job.stream.synchronize()?;
    let Job { id, host, .. } = job;
    Ok((id, host))
}

pub fn norms(jobs: Vec<Job>) -> Result<Vec<(u64, f32)>> {
    jobs.into_iter()
        .map(|j| finish(j).map(|(id, h)| (id, h.iter().map(|x| x * x).sum::<f32>().sqrt())))
        .collect()
}
