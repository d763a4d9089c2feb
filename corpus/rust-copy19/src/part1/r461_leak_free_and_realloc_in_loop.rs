//! case: each iteration frees the previous chunk buffer before allocating the next with cuMemAlloc_v2, and the last one is freed after the loop: nothing is lost
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const CHUNK: usize = 2048;
const CHUNKS: usize = 4;

pub fn chunk_heads(data: &[u8; CHUNK * CHUNKS]) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut heads = Vec::with_capacity(CHUNKS);
    let mut d_chunk: CUdeviceptr = 0;
    let mut bad = 0u32;
    for c in 0..CHUNKS {
        let mut head = 0u8;
        unsafe {
            if d_chunk != 0 {
                sys::cuMemFree_v2(d_chunk);
                d_chunk = 0;
            }
            bad += (sys::cuMemAlloc_v2(&mut d_chunk, CHUNK) != CUresult::CUDA_SUCCESS) as u32;
            let src = data[c * CHUNK..].as_ptr() as *const c_void;
            bad += (sys::cuMemcpyHtoD_v2(d_chunk, src, CHUNK) != CUresult::CUDA_SUCCESS) as u32;
            bad += (sys::cuMemcpyDtoH_v2(&mut head as *mut u8 as *mut c_void, d_chunk, 1) != CUresult::CUDA_SUCCESS) as u32;
        }
        heads.push(head);
    }
    unsafe {
        sys::cuMemFree_v2(d_chunk);
    }
    if bad > 0 {
        return Err("chunk copy failed".into());
    }
    Ok(heads)
}
