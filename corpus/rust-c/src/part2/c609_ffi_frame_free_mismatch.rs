//! case: a hand-written libcudart binding for a video pipeline allocates each frame's host side with `cudaMallocHost` and its device side with `cudaMalloc`, but the frame's `Drop` releases both with `cudaFree`
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::ptr::null_mut;

type CudaError = i32;
type CudaStream = *mut c_void;

const CUDA_SUCCESS: CudaError = 0;
const CUDA_MEMCPY_HOST_TO_DEVICE: i32 = 1;
const CUDA_MEMCPY_DEVICE_TO_HOST: i32 = 2;
const CUDA_STREAM_NON_BLOCKING: u32 = 1;

#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> CudaError;
    fn cudaMallocHost(ptr: *mut *mut c_void, size: usize) -> CudaError;
    fn cudaFree(dev_ptr: *mut c_void) -> CudaError;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: i32, stream: CudaStream) -> CudaError;
    fn cudaStreamCreateWithFlags(stream: *mut CudaStream, flags: u32) -> CudaError;
    fn cudaStreamSynchronize(stream: CudaStream) -> CudaError;
    fn cudaStreamDestroy(stream: CudaStream) -> CudaError;
}

#[derive(Debug)]
pub struct CudaErr(pub CudaError);

fn check(code: CudaError) -> Result<(), CudaErr> {
    if code == CUDA_SUCCESS { Ok(()) } else { Err(CudaErr(code)) }
}

/// One NV12 frame: a pinned host copy for the decoder and a device copy for the kernels.
pub struct Frame {
    host: *mut c_void,
    device: *mut c_void,
    bytes: usize,
    stream: CudaStream,
}

impl Frame {
    pub fn new(width: usize, height: usize) -> Result<Self, CudaErr> {
        let bytes = width * height * 3 / 2;
        let mut frame = Frame { host: null_mut(), device: null_mut(), bytes, stream: null_mut() };
        unsafe {
            check(cudaStreamCreateWithFlags(&mut frame.stream, CUDA_STREAM_NON_BLOCKING))?;
            check(cudaMallocHost(&mut frame.host, bytes))?;
            check(cudaMalloc(&mut frame.device, bytes))?;
        }
        Ok(frame)
    }

    pub fn host_mut(&mut self) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.host as *mut u8, self.bytes) }
    }

    /// Uploads what the decoder wrote into the host side.
    pub fn upload(&mut self) -> Result<(), CudaErr> {
        unsafe {
            check(cudaMemcpyAsync(self.device, self.host, self.bytes, CUDA_MEMCPY_HOST_TO_DEVICE, self.stream))
        }
    }

    /// Brings the processed frame back and waits for it.
    pub fn download(&mut self) -> Result<&[u8], CudaErr> {
        unsafe {
            check(cudaMemcpyAsync(self.host, self.device, self.bytes, CUDA_MEMCPY_DEVICE_TO_HOST, self.stream))?;
            check(cudaStreamSynchronize(self.stream))?;
            Ok(std::slice::from_raw_parts(self.host as *const u8, self.bytes))
        }
    }
}

impl Drop for Frame {
    fn drop(&mut self) {
        unsafe {
            cudaStreamSynchronize(self.stream);
            cudaFree(self.device);
            cudaFree(self.host); // EXPECT: mismatched_free
            cudaStreamDestroy(self.stream);
        }
    }
}

pub fn roundtrip(width: usize, height: usize, decoded: &[u8]) -> Result<u64, CudaErr> {
    let mut frame = Frame::new(width, height)?;
    frame.host_mut()[..decoded.len()].copy_from_slice(decoded);
    frame.upload()?;
    let back = frame.download()?;
    Ok(back.iter().map(|&b| b as u64).sum())
}
