use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use cuda_lint_runtime::{Context, DeviceBuffer, Result};

use super::batch::Batch;
use super::POOL_SRC;

pub struct Request {
    pub ids: Vec<u32>,
    pub reply: Sender<Vec<f32>>,
}

fn serve(ctx: Context, table: DeviceBuffer<f32>, dim: usize, rx: Receiver<Request>) -> Result<()> {
    ctx.bind_to_thread()?;
    let stream = ctx.new_stream()?;
    let kernel = ctx.load_cuda(POOL_SRC)?.function("embed_mean_pool")?;
    let mut batch = Batch::new(&ctx, dim)?;

    while let Ok(first) = rx.recv() {
        let mut waiting = vec![first];
        while let Ok(more) = rx.recv_timeout(Duration::from_millis(2)) {
            waiting.push(more);
            if waiting.len() == super::batch::MAX_REQS {
                break;
            }
        }
        let mut accepted = Vec::new();
        for req in waiting {
            if batch.push(&req.ids) {
                accepted.push(req.reply);
            } else {
                let _ = req.reply.send(Vec::new()); // rejected: too long for one batch
            }
        }
        if accepted.is_empty() {
            continue;
        }
        if let Err(e) = batch.submit(&stream, &kernel, &table) {
            // part of the batch may be enqueued: let it finish before the buffers are dropped
            let _ = stream.synchronize();
            return Err(e);
        }
        for (row, reply) in batch.finish(&stream)?.into_iter().zip(accepted) {
            let _ = reply.send(row);
        }
    }
    drop(table);
    Ok(())
}

pub fn spawn_server(ctx: Context, table: DeviceBuffer<f32>, dim: usize) -> (Sender<Request>, JoinHandle<Result<()>>) {
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::spawn(move || serve(ctx, table, dim, rx));
    (tx, handle)
}
