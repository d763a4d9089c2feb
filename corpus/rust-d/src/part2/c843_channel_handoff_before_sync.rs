//! case: a render loop (runtime layer) enqueues the tonemap kernel and the copy of each frame into a pinned buffer, then immediately sends the buffer over a channel to an encoder thread; the encoder reads the pixels while the copy may still be running, because the render thread only synchronizes once all frames are queued
//! expect: missing_sync=1

use std::sync::mpsc;
use std::thread;

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, PinnedBuffer, Result};

const TONEMAP_SRC: &str = r#"
extern "C" __global__ void tonemap_reinhard(const float* hdr, unsigned char* ldr, unsigned int n, float exposure) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = hdr[i] * exposure;
        ldr[i] = (unsigned char)(255.0f * v / (1.0f + v));
    }
}
"#;

pub fn render_sequence(ctx: &Context, hdr_frames: &[DeviceBuffer<f32>], exposure: f32) -> Result<Vec<u64>> {
    let stream = ctx.new_stream()?;
    let tonemap = ctx.load_cuda(TONEMAP_SRC)?.function("tonemap_reinhard")?;
    let (tx, rx) = mpsc::channel::<(usize, PinnedBuffer<u8>)>();

    let encoder = thread::spawn(move || {
        let mut digests = Vec::new();
        let mut spent = Vec::new(); // handed back to the render thread for reuse
        for (idx, frame) in rx {
            // stand-in for the PNG encoder: a rolling checksum of the pixels
            let digest = frame.iter().fold(idx as u64, |h, &p| h.rotate_left(5) ^ p as u64); // EXPECT: missing_sync
            digests.push(digest);
            spent.push(frame);
        }
        (digests, spent)
    });

    let mut scratch: Vec<DeviceBuffer<u8>> = Vec::with_capacity(hdr_frames.len());
    for (idx, hdr) in hdr_frames.iter().enumerate() {
        let n = hdr.len() as u32;
        let ldr = ctx.alloc::<u8>(hdr.len())?;
        let mut host = ctx.alloc_pinned::<u8>(hdr.len())?;
        unsafe {
            stream.launch(&tonemap, LaunchConfig::for_num_elems(n), &[hdr, &ldr, &n, &exposure])?;
            stream.copy_dtoh_async(&mut host, &ldr)?;
        }
        scratch.push(ldr);
        if tx.send((idx, host)).is_err() {
            break;
        }
    }
    drop(tx);
    stream.synchronize()?;
    let (digests, spent) = encoder.join().expect("encoder panicked");
    drop((scratch, spent));
    Ok(digests)
}
