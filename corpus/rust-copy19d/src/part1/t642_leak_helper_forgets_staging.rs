//! case: a per-frame helper cudaMalloc's a staging buffer, uploads and verifies the frame through it, and returns without cudaFree; the frame loop calls it every frame.
//! expect: device_memory_leak=1
use cudarc::runtime::sys::{cudaError, cudaMalloc, cudaMemcpy, cudaMemcpyKind};
use std::ffi::c_void;

const FRAME_BYTES: usize = 640 * 480 * 4;

fn stage_and_verify(frame: &[u8]) -> Result<bool, cudaError> {
    let mut d_stage: *mut c_void = std::ptr::null_mut();
    let mut echo = vec![0u8; FRAME_BYTES];
    unsafe {
        let st = cudaMalloc(&mut d_stage, FRAME_BYTES); // EXPECT: device_memory_leak
        if st != cudaError::cudaSuccess {
            return Err(st);
        }
        cudaMemcpy(d_stage, frame.as_ptr() as *const c_void, FRAME_BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        cudaMemcpy(echo.as_mut_ptr() as *mut c_void, d_stage, FRAME_BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
    }
    Ok(echo[..] == frame[..FRAME_BYTES])
}

pub fn verify_stream(frames: &[Vec<u8>]) -> Result<usize, cudaError> {
    let mut ok = 0;
    for f in frames {
        if f.len() >= FRAME_BYTES && stage_and_verify(f)? {
            ok += 1;
        }
    }
    Ok(ok)
}
