//! case: batched SHA-256 service over the CUDA runtime API (own extern "C" block): small batches go through a cudaMallocHost staging buffer, oversized ones are sent straight from the request Vec with cudaMemcpyAsync (pageable); the staging buffer's Drop releases it with cudaFree instead of cudaFreeHost
//! expect: pageable_async_copy=1, mismatched_free=1

mod ffi;
mod staging;

use ffi::*;
use staging::PinnedStaging;
use std::ffi::c_void;
use std::ptr;

#[derive(Debug)]
pub struct CudaStatus(pub i32);

fn check(code: i32) -> Result<(), CudaStatus> {
    if code == 0 { Ok(()) } else { Err(CudaStatus(code)) }
}

pub struct HashService {
    stream: CudaStreamT,
    staging: PinnedStaging,
    digests_host: *mut u8,
    offsets_host: *mut u32,
    d_input: *mut c_void,
    d_offsets: *mut c_void,
    d_digests: *mut c_void,
    max_msgs: usize,
    input_cap: usize,
}

impl HashService {
    pub fn new(input_cap: usize, max_msgs: usize) -> Result<Self, CudaStatus> {
        let mut stream: CudaStreamT = ptr::null_mut();
        let mut d_input = ptr::null_mut();
        let mut d_offsets = ptr::null_mut();
        let mut d_digests = ptr::null_mut();
        let mut digests_host: *mut c_void = ptr::null_mut();
        let mut offsets_host: *mut c_void = ptr::null_mut();
        unsafe {
            check(cudaStreamCreateWithFlags(&mut stream, CUDA_STREAM_NON_BLOCKING))?;
            check(cudaMalloc(&mut d_input, input_cap * 4))?;
            check(cudaMalloc(&mut d_offsets, (max_msgs + 1) * 4))?;
            check(cudaMalloc(&mut d_digests, max_msgs * 32))?;
            check(cudaMallocHost(&mut digests_host, max_msgs * 32))?;
            check(cudaMallocHost(&mut offsets_host, (max_msgs + 1) * 4))?;
        }
        Ok(HashService {
            stream,
            staging: PinnedStaging::new(input_cap)?,
            digests_host: digests_host as *mut u8,
            offsets_host: offsets_host as *mut u32,
            d_input,
            d_offsets,
            d_digests,
            max_msgs,
            input_cap,
        })
    }

    pub fn hash_batch(&mut self, messages: &[Vec<u8>]) -> Result<Vec<[u8; 32]>, CudaStatus> {
        let n = messages.len().min(self.max_msgs);
        let mut offsets = Vec::with_capacity(n + 1);
        let mut total = 0u32;
        offsets.push(0u32);
        for m in &messages[..n] {
            total += m.len() as u32;
            offsets.push(total);
        }
        let total = total as usize;
        if total > self.input_cap * 4 {
            return Err(CudaStatus(1)); // cudaErrorInvalidValue
        }

        unsafe {
            if total <= self.staging.bytes {
                let dst = self.staging.as_mut_bytes();
                let mut at = 0;
                for m in &messages[..n] {
                    dst[at..at + m.len()].copy_from_slice(m);
                    at += m.len();
                }
                check(cudaMemcpyAsync(self.d_input, self.staging.ptr, total, MEMCPY_HOST_TO_DEVICE, self.stream))?;
            } else {
                // Oversized batch: skip the staging buffer.
                let joined: Vec<u8> = messages[..n].concat();
                check(cudaMemcpyAsync(self.d_input, joined.as_ptr() as *const c_void, joined.len(), MEMCPY_HOST_TO_DEVICE, self.stream))?; // EXPECT: pageable_async_copy
            }
            let offs = std::slice::from_raw_parts_mut(self.offsets_host, n + 1);
            offs.copy_from_slice(&offsets);
            check(cudaMemcpyAsync(self.d_offsets, self.offsets_host as *const c_void, (n + 1) * 4, MEMCPY_HOST_TO_DEVICE, self.stream))?;
            check(sha256_batch_launch(self.d_input as *const u8, self.d_offsets as *const u32, n as u32, self.d_digests as *mut u8, self.stream))?;
            check(cudaMemcpyAsync(self.digests_host as *mut c_void, self.d_digests, n * 32, MEMCPY_DEVICE_TO_HOST, self.stream))?;
            check(cudaStreamSynchronize(self.stream))?;
            let digests = std::slice::from_raw_parts(self.digests_host, n * 32);
            Ok(digests
                .chunks_exact(32)
                .map(|c| {
                    let mut d = [0u8; 32];
                    d.copy_from_slice(c);
                    d
                })
                .collect())
        }
    }
}

impl Drop for HashService {
    fn drop(&mut self) {
        unsafe {
            cudaStreamSynchronize(self.stream);
            cudaFree(self.d_input);
            cudaFree(self.d_offsets);
            cudaFree(self.d_digests);
            cudaFreeHost(self.digests_host as *mut c_void);
            cudaFreeHost(self.offsets_host as *mut c_void);
            cudaStreamDestroy(self.stream);
        }
    }
}
