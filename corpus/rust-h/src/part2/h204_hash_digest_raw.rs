//! case: content-addressed blob store hashing blocks on the GPU through its own `extern "C"` CUDA runtime bindings; the padded message blocks are a `Vec<u8>` handed to `cudaMemcpyAsync` (pageable), and the digest buffer from `cudaMalloc` is released with `cudaFreeHost`
//! expect: pageable_async_copy=1, mismatched_free=1

use std::ffi::c_void;
use std::ptr;

#[allow(non_camel_case_types)]
type cudaStream_t = *mut c_void;

const CUDA_MEMCPY_HOST_TO_DEVICE: i32 = 1;
const CUDA_MEMCPY_DEVICE_TO_HOST: i32 = 2;
const CUDA_STREAM_NON_BLOCKING: u32 = 1;
const BLOCK: usize = 64;
const DIGEST: usize = 32;

#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> i32;
    fn cudaFree(dev_ptr: *mut c_void) -> i32;
    fn cudaFreeHost(ptr: *mut c_void) -> i32;
    fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: i32) -> i32;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: i32, stream: cudaStream_t) -> i32;
    fn cudaStreamCreateWithFlags(stream: *mut cudaStream_t, flags: u32) -> i32;
    fn cudaStreamSynchronize(stream: cudaStream_t) -> i32;
    fn cudaStreamDestroy(stream: cudaStream_t) -> i32;
}

// The hashing kernels come from the vendored libgpuhash (C API).
#[link(name = "gpuhash")]
unsafe extern "C" {
    fn gpuhash_sha256_blocks(blocks: *const c_void, n_msgs: usize, blocks_per_msg: usize, digests: *mut c_void, stream: cudaStream_t) -> i32;
}

#[derive(Debug)]
pub struct CudaStatus(pub i32);

fn check(code: i32) -> Result<(), CudaStatus> {
    if code == 0 { Ok(()) } else { Err(CudaStatus(code)) }
}

fn pad_message(msg: &[u8], blocks_per_msg: usize, out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(msg);
    out.push(0x80);
    out.resize(start + blocks_per_msg * BLOCK - 8, 0);
    out.extend_from_slice(&((msg.len() as u64) * 8).to_be_bytes());
}

pub fn hash_chunks(chunks: &[&[u8]]) -> Result<Vec<[u8; DIGEST]>, CudaStatus> {
    let longest = chunks.iter().map(|c| c.len()).max().unwrap_or(0);
    let blocks_per_msg = (longest + 9).div_ceil(BLOCK);
    let mut padded = Vec::with_capacity(chunks.len() * blocks_per_msg * BLOCK);
    chunks.iter().for_each(|c| pad_message(c, blocks_per_msg, &mut padded));

    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_blocks: *mut c_void = ptr::null_mut();
    let mut d_digests: *mut c_void = ptr::null_mut();
    unsafe {
        check(cudaStreamCreateWithFlags(&mut stream, CUDA_STREAM_NON_BLOCKING))?;
        check(cudaMalloc(&mut d_blocks, padded.len()))?;
        check(cudaMalloc(&mut d_digests, chunks.len() * DIGEST))?;
        check(cudaMemcpyAsync(d_blocks, padded.as_ptr().cast(), padded.len(), CUDA_MEMCPY_HOST_TO_DEVICE, stream))?; // EXPECT: pageable_async_copy
        check(gpuhash_sha256_blocks(d_blocks, chunks.len(), blocks_per_msg, d_digests, stream))?;
        check(cudaStreamSynchronize(stream))?;
    }

    let mut digests = vec![[0u8; DIGEST]; chunks.len()];
    unsafe {
        check(cudaMemcpy(digests.as_mut_ptr().cast(), d_digests, chunks.len() * DIGEST, CUDA_MEMCPY_DEVICE_TO_HOST))?;
        check(cudaFree(d_blocks))?;
        check(cudaFreeHost(d_digests))?; // EXPECT: mismatched_free
        check(cudaStreamDestroy(stream))?;
    }
    Ok(digests)
}
