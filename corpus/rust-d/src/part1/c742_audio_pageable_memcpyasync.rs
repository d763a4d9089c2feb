//! case: a speech front end (its own `extern "C"` libcudart declarations) pushes each decoded second of interleaved PCM from a Vec<f32> to the GPU with cudaMemcpyAsync: pageable memory of a size only known at run time
//! expect: pageable_async_copy=1

use std::ffi::{c_int, c_void};
use std::mem::size_of;
use std::ptr::null_mut;
use std::sync::mpsc::Receiver;

type CudaStream = *mut c_void;

#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaMalloc(ptr: *mut *mut c_void, size: usize) -> c_int;
    fn cudaFree(ptr: *mut c_void) -> c_int;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: c_int, stream: CudaStream) -> c_int;
    fn cudaStreamSynchronize(stream: CudaStream) -> c_int;
}

const HOST_TO_DEVICE: c_int = 1;

pub struct PcmChunk {
    pub sample_rate: u32,
    pub channels: u16,
    pub samples: Vec<f32>,
}

pub struct FrontEnd {
    stream: CudaStream,
    d_pcm: *mut c_void,
    capacity: usize,
}

impl FrontEnd {
    pub fn new(stream: CudaStream, max_seconds: usize) -> Result<Self, c_int> {
        let capacity = 48_000 * 2 * max_seconds;
        let mut d_pcm = null_mut();
        match unsafe { cudaMalloc(&mut d_pcm, capacity * size_of::<f32>()) } {
            0 => Ok(Self { stream, d_pcm, capacity }),
            e => Err(e),
        }
    }

    /// Appends every chunk the decoder sends until it hangs up; returns the samples on the device.
    pub fn ingest(&mut self, chunks: Receiver<PcmChunk>) -> Result<usize, c_int> {
        let mut filled = 0usize;
        for chunk in chunks {
            let n = chunk.samples.len().min(self.capacity - filled);
            if n == 0 {
                break;
            }
            let dst = unsafe { (self.d_pcm as *mut f32).add(filled) };
            let rc = unsafe { cudaMemcpyAsync(dst.cast(), chunk.samples.as_ptr().cast(), n * size_of::<f32>(), HOST_TO_DEVICE, self.stream) }; // EXPECT: pageable_async_copy
            if rc != 0 {
                return Err(rc);
            }
            filled += n;
        }
        match unsafe { cudaStreamSynchronize(self.stream) } {
            0 => Ok(filled),
            e => Err(e),
        }
    }
}

impl Drop for FrontEnd {
    fn drop(&mut self) {
        unsafe {
            cudaStreamSynchronize(self.stream);
            cudaFree(self.d_pcm);
        }
    }
}
