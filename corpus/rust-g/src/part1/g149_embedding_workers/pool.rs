use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, Result};

use super::worker::Worker;
use super::ENCODE_SRC;

pub struct Shared {
    pub ctx: Context,
    pub encode: Kernel,
    pub table: DeviceBuffer<f32>,
    pub dim: usize,
}

static SHARED: OnceLock<Shared> = OnceLock::new();

pub fn shared() -> &'static Shared {
    SHARED.get().expect("EmbeddingPool::start not called")
}

pub struct Job {
    pub ids: Vec<u32>,
    pub reply: Sender<Vec<f32>>,
}

pub struct EmbeddingPool {
    tx: Option<Sender<Job>>,
    workers: Vec<JoinHandle<Result<()>>>,
}

impl EmbeddingPool {
    pub fn start(table: DeviceBuffer<f32>, dim: usize, threads: usize) -> Result<Self> {
        let ctx = table.context().clone();
        let encode = ctx.load_cuda(ENCODE_SRC)?.function("encode_mean")?;
        let _ = SHARED.set(Shared { ctx, encode, table, dim });

        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let workers = (0..threads)
            .map(|_| {
                let rx = Arc::clone(&rx);
                std::thread::spawn(move || -> Result<()> {
                    let mut w = Worker::new(shared())?;
                    loop {
                        let job = match rx.lock().unwrap().recv() {
                            Ok(job) => job,
                            Err(_) => return Ok(()),
                        };
                        let v = w.embed(shared(), &job.ids)?;
                        let _ = job.reply.send(v);
                    }
                })
            })
            .collect();
        Ok(EmbeddingPool { tx: Some(tx), workers })
    }

    pub fn submit(&self, ids: Vec<u32>) -> mpsc::Receiver<Vec<f32>> {
        let (reply, rx) = mpsc::channel();
        if let Some(tx) = &self.tx {
            let _ = tx.send(Job { ids, reply });
        }
        rx
    }

    pub fn shutdown(mut self) -> Result<()> {
        drop(self.tx.take());
        for w in self.workers.drain(..) {
            w.join().map_err(|_| cuda_lint_runtime::Error::Unsupported { what: "worker panicked".into() })??;
        }
        Ok(())
    }
}
