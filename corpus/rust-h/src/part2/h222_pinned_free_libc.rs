//! case: compression worker on cudarc's runtime-API bindings; its staging buffer comes from `cudaMallocHost`, and the early-return path for an oversized chunk releases it with `libc::free` instead of `cudaFreeHost` (the normal path frees it correctly after synchronizing)
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::ptr;

use cudarc::runtime::sys::{self, cudaError_t, cudaMemcpyKind, cudaStream_t};

#[derive(Debug)]
pub enum WorkerError {
    Cuda(cudaError_t),
    ChunkTooLarge { len: usize, max: usize },
}

fn ok(code: cudaError_t) -> Result<(), WorkerError> {
    if code == cudaError_t::cudaSuccess { Ok(()) } else { Err(WorkerError::Cuda(code)) }
}

pub struct ChunkUpload {
    pub device: *mut c_void,
    pub len: usize,
}

/// Stages `chunk` in page-locked memory and uploads it to freshly allocated device memory.
pub fn stage_chunk(chunk: &[u8], max_chunk: usize, stream: cudaStream_t) -> Result<ChunkUpload, WorkerError> {
    let mut staging: *mut c_void = ptr::null_mut();
    unsafe { ok(sys::cudaMallocHost(&mut staging, max_chunk))? };

    if chunk.len() > max_chunk {
        unsafe { libc::free(staging) }; // EXPECT: mismatched_free
        return Err(WorkerError::ChunkTooLarge { len: chunk.len(), max: max_chunk });
    }

    let mut device: *mut c_void = ptr::null_mut();
    unsafe {
        ptr::copy_nonoverlapping(chunk.as_ptr(), staging.cast::<u8>(), chunk.len());
        ok(sys::cudaMalloc(&mut device, chunk.len()))?;
        ok(sys::cudaMemcpyAsync(device, staging, chunk.len(), cudaMemcpyKind::cudaMemcpyHostToDevice, stream))?;
        ok(sys::cudaStreamSynchronize(stream))?;
        ok(sys::cudaFreeHost(staging))?;
    }
    Ok(ChunkUpload { device, len: chunk.len() })
}

pub fn stage_all(chunks: &[Vec<u8>], max_chunk: usize) -> Result<Vec<ChunkUpload>, WorkerError> {
    let mut stream: cudaStream_t = ptr::null_mut();
    unsafe { ok(sys::cudaStreamCreateWithFlags(&mut stream, sys::cudaStreamNonBlocking))? };
    let uploads = chunks.iter().map(|c| stage_chunk(c, max_chunk, stream)).collect();
    unsafe { ok(sys::cudaStreamDestroy(stream))? };
    uploads
}
