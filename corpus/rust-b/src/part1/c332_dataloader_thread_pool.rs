//! case: a data loader with decode threads feeding a bounded channel; the GPU thread uploads each decoded Vec batch with copy_htod_async
//! expect: pageable_async_copy=1
use std::sync::mpsc::sync_channel;
use std::sync::{Arc, Mutex};
use std::thread;

use cuda_lint_runtime::{Context, DeviceBuffer, Result, Stream};

pub struct Batch {
    pub index: usize,
    pub pixels: Vec<f32>,
}

fn decode(index: usize, len: usize) -> Batch {
    Batch { index, pixels: (0..len).map(|i| ((i * 31 + index) % 255) as f32 / 255.0).collect() }
}

pub fn load_epoch(ctx: &Context, stream: Arc<Stream>, batches: usize, batch_len: usize, workers: usize) -> Result<Vec<DeviceBuffer<f32>>> {
    let (tx, rx) = sync_channel::<Batch>(workers * 2);
    let next = Arc::new(Mutex::new(0usize));
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let tx = tx.clone();
            let next = Arc::clone(&next);
            thread::spawn(move || loop {
                let i = {
                    let mut g = next.lock().unwrap();
                    let i = *g;
                    *g += 1;
                    i
                };
                if i >= batches || tx.send(decode(i, batch_len)).is_err() {
                    break;
                }
            })
        })
        .collect();
    drop(tx);

    let mut out: Vec<Option<DeviceBuffer<f32>>> = (0..batches).map(|_| None).collect();
    for batch in rx {
        let mut dev = ctx.alloc::<f32>(batch.pixels.len())?;
        // SAFETY: pageable source, staged by the driver before the call returns.
        unsafe { stream.copy_htod_async(&mut dev, &batch.pixels)? }; // EXPECT: pageable_async_copy
        out[batch.index] = Some(dev);
    }
    for h in handles {
        h.join().expect("decoder panicked");
    }
    stream.synchronize()?;
    Ok(out.into_iter().flatten().collect())
}
