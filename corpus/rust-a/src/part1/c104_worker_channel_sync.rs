//! case: a download worker fed by an mpsc channel synchronizes its own stream before sending each filled pinned buffer back; the main thread reads what it receives
//! expect: none
use std::sync::mpsc;
use std::thread;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result};

pub struct Job {
    pub id: usize,
    pub dev: DeviceBuffer<f32>,
    pub host: PinnedBuffer<f32>,
}

fn worker(ctx: Context, jobs: mpsc::Receiver<Job>, done: mpsc::Sender<Result<Job>>) {
    let stream = match ctx.new_stream() {
        Ok(s) => s,
        Err(e) => {
            let _ = done.send(Err(e));
            return;
        }
    };
    for mut job in jobs {
        let res = (|| {
            // SAFETY: `job.host` is not touched until the stream below is synchronized.
            unsafe { stream.copy_dtoh_async(&mut job.host, &job.dev)? };
            stream.synchronize()?;
            Ok(job)
        })();
        if done.send(res).is_err() {
            break;
        }
    }
}

pub fn download_all(ctx: &Context, devs: Vec<DeviceBuffer<f32>>) -> Result<Vec<(usize, f32)>> {
    let (job_tx, job_rx) = mpsc::channel::<Job>();
    let (done_tx, done_rx) = mpsc::channel();
    let worker_ctx = ctx.clone();
    let handle = thread::spawn(move || worker(worker_ctx, job_rx, done_tx));
    let count = devs.len();
    for (id, dev) in devs.into_iter().enumerate() {
        let host = ctx.alloc_pinned::<f32>(dev.len())?;
        job_tx.send(Job { id, dev, host }).expect("worker gone");
    }
    drop(job_tx);
    let mut sums = Vec::with_capacity(count);
    for res in done_rx {
        let job = res?;
        sums.push((job.id, job.host.iter().copied().sum()));
    }
    handle.join().expect("worker panicked");
    Ok(sums)
}
