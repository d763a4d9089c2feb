//! case: a training data loader: a filler thread writes batches into pinned buffers and sends them to the upload thread, which enqueues the H2D copy and sends the buffer straight back through the return channel; the filler refills it while that copy may still be reading it
//! expect: missing_sync=1
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Stream};

pub struct Batch {
    pub step: u64,
    pub data: PinnedBuffer<f32>,
}

fn synth_sample(step: u64, i: usize) -> f32 {
    ((step as usize * 7919 + i * 104_729) % 1000) as f32 / 1000.0
}

pub fn run_epoch(ctx: &Context, steps: u64, batch_len: usize) -> cuda_lint_runtime::Result<Vec<DeviceBuffer<f32>>> {
    let stream = Arc::new(ctx.new_stream()?);
    let (full_tx, full_rx) = mpsc::sync_channel::<Batch>(2);
    let (empty_tx, empty_rx) = mpsc::channel::<PinnedBuffer<f32>>();
    for _ in 0..2 {
        empty_tx.send(ctx.alloc_pinned::<f32>(batch_len)?).expect("loader alive");
    }

    let filler = thread::spawn(move || {
        for step in 0..steps {
            let Ok(mut data) = empty_rx.recv() else { break };
            data.iter_mut().enumerate().for_each(|(i, x)| *x = synth_sample(step, i)); // EXPECT: missing_sync
            if full_tx.send(Batch { step, data }).is_err() {
                break;
            }
        }
        empty_rx // handed back so recycled buffers outlive the uploads
    });

    let upload_stream = Arc::clone(&stream);
    let ctx2 = ctx.clone();
    let uploader = thread::spawn(move || -> cuda_lint_runtime::Result<Vec<DeviceBuffer<f32>>> {
        ctx2.bind_to_thread()?;
        let mut on_device = Vec::new();
        let mut retired = Vec::new(); // buffers the filler no longer takes: kept until the sync
        for batch in full_rx {
            let mut dev = ctx2.alloc::<f32>(batch.data.len())?;
            unsafe { upload_stream.copy_htod_async(&mut dev, &batch.data)? };
            on_device.push(dev);
            // Recycle the staging buffer for the next batch.
            if let Err(mpsc::SendError(data)) = empty_tx.send(batch.data) {
                retired.push(data);
            }
        }
        upload_stream.synchronize()?;
        drop(retired);
        Ok(on_device)
    });

    let empty_rx = filler.join().expect("filler thread panicked");
    let uploaded = uploader.join().expect("uploader thread panicked");
    drop(empty_rx);
    uploaded
}
