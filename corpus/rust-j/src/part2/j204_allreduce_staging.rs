//! case: data-parallel trainer stages each gradient bucket to the host for a TCP ring all-reduce with `cudaMemcpyAsync` into and out of a plain `Vec<f32>` (raw runtime-API FFI); both directions are pageable async copies (reading the Vec right after the D2H is fine: a pageable D2H returns only once complete)
//! expect: pageable_async_copy=2

use std::ffi::c_void;
use std::io::{Read, Write};
use std::net::TcpStream;

type CudaStreamT = *mut c_void;

const CUDA_MEMCPY_HOST_TO_DEVICE: i32 = 1;
const CUDA_MEMCPY_DEVICE_TO_HOST: i32 = 2;
const CUDA_STREAM_NON_BLOCKING: u32 = 1;

#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> i32;
    fn cudaFree(dev_ptr: *mut c_void) -> i32;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: i32, stream: CudaStreamT) -> i32;
    fn cudaStreamCreateWithFlags(stream: *mut CudaStreamT, flags: u32) -> i32;
    fn cudaStreamSynchronize(stream: CudaStreamT) -> i32;
    fn cudaStreamDestroy(stream: CudaStreamT) -> i32;
}

#[derive(Debug)]
pub struct CudaRtError(pub i32);

fn ck(code: i32) -> Result<(), CudaRtError> {
    if code == 0 { Ok(()) } else { Err(CudaRtError(code)) }
}

pub struct GradientBucket {
    pub name: String,
    dev: *mut c_void,
    len: usize,
    host: Vec<f32>,
}

impl GradientBucket {
    pub fn new(name: &str, len: usize) -> Result<Self, CudaRtError> {
        let mut dev = std::ptr::null_mut();
        ck(unsafe { cudaMalloc(&mut dev, len * 4) })?;
        Ok(Self { name: name.to_owned(), dev, len, host: vec![0.0; len] })
    }
    fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<f32>()
    }
}

impl Drop for GradientBucket {
    fn drop(&mut self) {
        unsafe { cudaFree(self.dev) };
    }
}

pub struct RingAllReduce {
    stream: CudaStreamT,
    left: TcpStream,
    right: TcpStream,
    world: usize,
}

impl RingAllReduce {
    pub fn connect(left: TcpStream, right: TcpStream, world: usize) -> Result<Self, CudaRtError> {
        let mut stream = std::ptr::null_mut();
        ck(unsafe { cudaStreamCreateWithFlags(&mut stream, CUDA_STREAM_NON_BLOCKING) })?;
        Ok(Self { stream, left, right, world })
    }

    fn stage_out(&self, bucket: &mut GradientBucket) -> Result<(), CudaRtError> {
        let bytes = bucket.bytes();
        ck(unsafe { cudaMemcpyAsync(bucket.host.as_mut_ptr().cast(), bucket.dev, bytes, CUDA_MEMCPY_DEVICE_TO_HOST, self.stream) }) // EXPECT: pageable_async_copy
    }

    fn stage_in(&self, bucket: &GradientBucket) -> Result<(), CudaRtError> {
        let bytes = bucket.bytes();
        ck(unsafe { cudaMemcpyAsync(bucket.dev, bucket.host.as_ptr().cast(), bytes, CUDA_MEMCPY_HOST_TO_DEVICE, self.stream) }) // EXPECT: pageable_async_copy
    }

    fn exchange(&mut self, data: &mut [f32]) -> std::io::Result<()> {
        let mut incoming = vec![0u8; data.len() * 4];
        for _ in 0..self.world - 1 {
            let out: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
            self.right.write_all(&out)?;
            self.left.read_exact(&mut incoming)?;
            for (d, c) in data.iter_mut().zip(incoming.chunks_exact(4)) {
                *d += f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
        let scale = 1.0 / self.world as f32;
        data.iter_mut().for_each(|v| *v *= scale);
        Ok(())
    }

    pub fn reduce(&mut self, buckets: &mut [GradientBucket]) -> Result<(), Box<dyn std::error::Error>> {
        for bucket in buckets.iter_mut() {
            self.stage_out(bucket).map_err(|e| format!("stage_out {}: {:?}", bucket.name, e))?;
            let mut host = std::mem::take(&mut bucket.host);
            self.exchange(&mut host)?;
            bucket.host = host;
            self.stage_in(bucket).map_err(|e| format!("stage_in {}: {:?}", bucket.name, e))?;
        }
        ck(unsafe { cudaStreamSynchronize(self.stream) }).map_err(|e| format!("sync: {e:?}"))?;
        Ok(())
    }
}

impl Drop for RingAllReduce {
    fn drop(&mut self) {
        unsafe {
            cudaStreamSynchronize(self.stream);
            cudaStreamDestroy(self.stream);
        }
    }
}
