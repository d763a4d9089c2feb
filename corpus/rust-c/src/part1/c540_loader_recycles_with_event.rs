//! case: the data loader with the fix: the upload thread records an event after each H2D copy and returns the buffer together with the event; the filler synchronizes the event before writing the buffer again
//! expect: none
use std::sync::mpsc;
use std::thread;

use cuda_lint_runtime::{Context, DeviceBuffer, Event, PinnedBuffer};

struct Returned {
    data: PinnedBuffer<f32>,
    copied: Option<Event>,
}

pub fn run_epoch(ctx: &Context, steps: u64, batch_len: usize) -> cuda_lint_runtime::Result<Vec<DeviceBuffer<f32>>> {
    let stream = ctx.new_stream()?;
    let (full_tx, full_rx) = mpsc::sync_channel::<(u64, PinnedBuffer<f32>)>(2);
    let (empty_tx, empty_rx) = mpsc::channel::<Returned>();
    for _ in 0..2 {
        let data = ctx.alloc_pinned::<f32>(batch_len)?;
        empty_tx.send(Returned { data, copied: None }).expect("loader alive");
    }

    let filler = thread::spawn(move || {
        let filled = (|| -> cuda_lint_runtime::Result<()> {
            for step in 0..steps {
                let Ok(Returned { mut data, copied }) = empty_rx.recv() else { break };
                if let Some(ev) = copied {
                    ev.synchronize()?;
                }
                for (i, x) in data.iter_mut().enumerate() {
                    *x = ((step as usize * 31 + i) % 255) as f32 / 255.0;
                }
                if full_tx.send((step, data)).is_err() {
                    break;
                }
            }
            Ok(())
        })();
        drop(full_tx);
        (filled, empty_rx) // the receiver goes back so queued buffers outlive their copies
    });

    let mut on_device = Vec::new();
    let mut retired = Vec::new(); // returned after the filler stopped: kept until the sync
    for (_step, data) in full_rx {
        let mut dev = ctx.alloc::<f32>(data.len())?;
        unsafe { stream.copy_htod_async(&mut dev, &data)? };
        let ev = ctx.new_event()?;
        stream.record_event(&ev)?;
        on_device.push(dev);
        if let Err(mpsc::SendError(r)) = empty_tx.send(Returned { data, copied: Some(ev) }) {
            retired.push(r);
        }
    }
    drop(empty_tx);
    stream.synchronize()?;
    drop(retired);
    let (filled, empty_rx) = filler.join().expect("filler thread panicked");
    drop(empty_rx);
    filled?;
    Ok(on_device)
}
