//! case: a frame exporter copies each result frame into a fresh pinned buffer and hands it to a writer thread over a channel; the stream is only synchronized after the send, so the writer can encode the frame before the device-to-host copy has landed
//! expect: missing_sync=1

use std::io::Write;
use std::sync::mpsc;
use std::thread;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct Frame {
    pub index: usize,
    pub pixels: PinnedBuffer<f32>,
}

fn encode_u8(frame: &[f32]) -> Vec<u8> {
    frame.iter().map(|v| (v.clamp(0.0, 1.0) * 255.0) as u8).collect()
}

pub fn export_frames<W>(ctx: &Context, stream: &Stream, frames: &[DeviceBuffer<f32>], mut sink: W) -> Result<()>
where
    W: Write + Send + 'static,
{
    let (tx, rx) = mpsc::channel::<Frame>();
    let writer = thread::spawn(move || -> std::io::Result<usize> {
        let mut written = 0;
        for frame in rx {
            let pixels = frame.pixels;
            let bytes = encode_u8(&pixels); // EXPECT: missing_sync
            drop(pixels); // back to the driver as soon as it is encoded
            sink.write_all(&(frame.index as u32).to_le_bytes())?;
            sink.write_all(&bytes)?;
            written += 1;
        }
        Ok(written)
    });

    for (index, dev) in frames.iter().enumerate() {
        let mut pixels = ctx.alloc_pinned::<f32>(dev.len())?;
        unsafe { stream.copy_dtoh_async(&mut pixels, dev)? };
        if tx.send(Frame { index, pixels }).is_err() {
            break;
        }
    }
    drop(tx);
    stream.synchronize()?;
    let _ = writer.join();
    Ok(())
}
