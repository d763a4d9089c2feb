//! case: speech front end (log-mel frames for an encoder) that page-locks the frame `Vec` in place with `cuMemHostRegister`, uploads it with cudarc's `result::memcpy_htod_async`, synchronizes the stream, and only then unregisters and drops the vector
//! expect: none

use std::ffi::c_void;

use cudarc::driver::{result, sys, CudaContext};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const N_MELS: usize = 80;

fn log_mel(samples: &[f32], hop: usize) -> Vec<f32> {
    let frames = samples.len() / hop;
    let mut out = vec![0.0f32; frames * N_MELS];
    for (f, chunk) in samples.chunks_exact(hop).enumerate() {
        let energy = chunk.iter().map(|s| s * s).sum::<f32>() / hop as f32;
        for m in 0..N_MELS {
            out[f * N_MELS + m] = (energy * (1.0 + m as f32 / N_MELS as f32) + 1e-10).ln();
        }
    }
    out
}

pub fn upload_utterance(samples: &[f32], stream: sys::CUstream) -> Result<(sys::CUdeviceptr, usize)> {
    let mut frames = log_mel(samples, 160);
    let bytes = frames.len() * 4;
    let dev = unsafe { result::malloc_sync(bytes)? };

    unsafe { sys::cuMemHostRegister_v2(frames.as_mut_ptr() as *mut c_void, bytes, 0).result()? };
    let copied = unsafe { result::memcpy_htod_async(dev, &frames, stream) };
    let synced = unsafe { result::stream::synchronize(stream) };
    unsafe { sys::cuMemHostUnregister(frames.as_mut_ptr() as *mut c_void).result()? };
    copied?;
    synced?;
    drop(frames);
    Ok((dev, bytes / 4 / N_MELS))
}

pub fn encode_batch(utterances: &[Vec<f32>]) -> Result<Vec<(sys::CUdeviceptr, usize)>> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
    let out = utterances.iter().map(|u| upload_utterance(u, stream)).collect::<Result<Vec<_>>>();
    unsafe { result::stream::destroy(stream)? };
    out
}
