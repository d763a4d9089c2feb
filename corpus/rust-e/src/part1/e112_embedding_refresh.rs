//! case: nightly embedding refresh through hand-written libcudart bindings; rows are encoded into cudaHostAlloc'd staging, copied with cudaMemcpyAsync, the stream is synchronized before the staging buffer is refilled, and each allocation is released by its own allocator's free
//! expect: none

use std::ffi::c_void;
use std::ptr;

type CudaError = i32;
type CudaStream = *mut c_void;

const CUDA_SUCCESS: CudaError = 0;
const CUDA_HOST_ALLOC_DEFAULT: u32 = 0;
const CUDA_STREAM_NON_BLOCKING: u32 = 1;
const CUDA_MEMCPY_HOST_TO_DEVICE: i32 = 1;

#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> CudaError;
    fn cudaFree(dev_ptr: *mut c_void) -> CudaError;
    fn cudaHostAlloc(host_ptr: *mut *mut c_void, size: usize, flags: u32) -> CudaError;
    fn cudaFreeHost(host_ptr: *mut c_void) -> CudaError;
    fn cudaStreamCreateWithFlags(stream: *mut CudaStream, flags: u32) -> CudaError;
    fn cudaStreamSynchronize(stream: CudaStream) -> CudaError;
    fn cudaStreamDestroy(stream: CudaStream) -> CudaError;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: i32, stream: CudaStream) -> CudaError;
}

fn check(code: CudaError) -> Result<(), String> {
    if code == CUDA_SUCCESS { Ok(()) } else { Err(format!("cuda error {code}")) }
}

/// How a model's rows are laid out in the table.
pub trait RowCodec {
    const DIM: usize;
    fn encode(&self, out: &mut [f32]);
}

pub struct EmbeddingTable<R: RowCodec> {
    stream: CudaStream,
    device: *mut f32,
    staging: *mut f32,
    staging_rows: usize,
    rows: usize,
    _codec: std::marker::PhantomData<R>,
}

impl<R: RowCodec> EmbeddingTable<R> {
    pub fn new(rows: usize, staging_rows: usize) -> Result<Self, String> {
        let mut stream = ptr::null_mut();
        let mut device = ptr::null_mut();
        let mut staging = ptr::null_mut();
        unsafe {
            check(cudaStreamCreateWithFlags(&mut stream, CUDA_STREAM_NON_BLOCKING))?;
            check(cudaMalloc(&mut device, rows * R::DIM * 4))?;
            check(cudaHostAlloc(&mut staging, staging_rows * R::DIM * 4, CUDA_HOST_ALLOC_DEFAULT))?;
        }
        Ok(EmbeddingTable { stream, device: device.cast(), staging: staging.cast(), staging_rows, rows, _codec: std::marker::PhantomData })
    }

    pub fn refresh(&mut self, updates: &[(usize, R)]) -> Result<usize, String> {
        let mut written = 0;
        for batch in updates.chunks(self.staging_rows) {
            let staged = unsafe { std::slice::from_raw_parts_mut(self.staging, batch.len() * R::DIM) };
            for ((row, item), out) in batch.iter().zip(staged.chunks_exact_mut(R::DIM)) {
                if *row < self.rows {
                    item.encode(out);
                }
            }
            for (i, (row, _)) in batch.iter().enumerate().filter(|(_, (r, _))| *r < self.rows) {
                unsafe {
                    let src = self.staging.add(i * R::DIM) as *const c_void;
                    let dst = self.device.add(row * R::DIM) as *mut c_void;
                    check(cudaMemcpyAsync(dst, src, R::DIM * 4, CUDA_MEMCPY_HOST_TO_DEVICE, self.stream))?;
                }
                written += 1;
            }
            // the next batch overwrites the staging rows
            unsafe { check(cudaStreamSynchronize(self.stream))? };
        }
        Ok(written)
    }
}

impl<R: RowCodec> Drop for EmbeddingTable<R> {
    fn drop(&mut self) {
        unsafe {
            cudaStreamSynchronize(self.stream);
            cudaFreeHost(self.staging.cast());
            cudaFree(self.device.cast());
            cudaStreamDestroy(self.stream);
        }
    }
}
