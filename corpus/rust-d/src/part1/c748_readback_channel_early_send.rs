//! case: a render worker thread (runtime layer) enqueues the readback of each finished frame into a pinned buffer and sends the buffer over a channel to the encoder thread right away; the encoder reads the pixels while the copy may still be running (the worker synchronizes its stream only when it shuts down)
//! expect: missing_sync=1

use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::{self, JoinHandle};

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct FrameReadback {
    pub index: u64,
    pub rgba: PinnedBuffer<u8>,
}

/// Reads back every rendered frame, in order, and hands each readback to the encoder.
pub fn spawn_render_worker(ctx: Context, frames: Vec<DeviceBuffer<u8>>, encoded: Sender<FrameReadback>) -> JoinHandle<Result<()>> {
    thread::spawn(move || {
        ctx.bind_to_thread()?;
        let stream: Stream = ctx.new_stream()?;
        let enqueued = frames.iter().enumerate().try_for_each(|(index, frame)| -> Result<()> {
            let mut rgba = ctx.alloc_pinned::<u8>(frame.len())?;
            unsafe { stream.copy_dtoh_async(&mut rgba, frame)? };
            if let Err(mpsc::SendError(unsent)) = encoded.send(FrameReadback { index: index as u64, rgba }) {
                // The encoder quit: wait for the copy before the pinned buffer is freed.
                stream.synchronize()?;
                drop(unsent);
            }
            Ok(())
        });
        // Drain before the device frames are freed, whether or not every frame was enqueued.
        let drained = stream.synchronize();
        enqueued.and(drained)
    })
}

/// Encoder side: a checksum stands in for the video encoder; the frames are kept for the
/// thumbnail strip and returned.
pub fn spawn_encoder(readbacks: Receiver<FrameReadback>) -> JoinHandle<(Vec<u32>, Vec<FrameReadback>)> {
    thread::spawn(move || {
        let mut sums = Vec::new();
        let mut kept = Vec::new();
        for fb in readbacks {
            let adler = fb.rgba.iter().fold((1u32, 0u32), |(a, b), &p| ((a + p as u32) % 65521, (b + a + p as u32) % 65521)); // EXPECT: missing_sync
            sums.push((adler.1 << 16) | adler.0);
            kept.push(fb);
        }
        (sums, kept)
    })
}

pub fn run(ctx: &Context, frames: Vec<DeviceBuffer<u8>>) -> Result<Vec<u32>> {
    let (tx, rx) = mpsc::channel();
    let worker = spawn_render_worker(ctx.clone(), frames, tx);
    let encoder = spawn_encoder(rx);
    let rendered = worker.join().expect("render worker panicked");
    let (sums, _thumbnails) = encoder.join().expect("encoder panicked");
    rendered.map(|()| sums)
}
