//! case: IoT sensor gateway (own extern "C" CUDA runtime bindings): readings are staged in cudaMallocHost memory, copied with cudaMemcpyAsync on a non-blocking stream, processed, copied back into a second cudaMallocHost buffer and read after cudaStreamSynchronize; both buffers are released with cudaFreeHost (near-miss)
//! expect: none

use std::ffi::c_void;
use std::ptr;

type Stream = *mut c_void;

#[allow(non_snake_case)]
#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaMallocHost(ptr: *mut *mut c_void, size: usize) -> i32;
    fn cudaFreeHost(ptr: *mut c_void) -> i32;
    fn cudaMalloc(devPtr: *mut *mut c_void, size: usize) -> i32;
    fn cudaFree(devPtr: *mut c_void) -> i32;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: i32, stream: Stream) -> i32;
    fn cudaStreamCreateWithFlags(stream: *mut Stream, flags: u32) -> i32;
    fn cudaStreamSynchronize(stream: Stream) -> i32;
    fn cudaStreamDestroy(stream: Stream) -> i32;
}

#[link(name = "sensorkernels")]
unsafe extern "C" {
    /// Enqueues the de-jitter filter: out[i] = median of in[i-2..=i+2].
    fn launch_dejitter(d_in: *const f32, d_out: *mut f32, n: u32, stream: Stream) -> i32;
}

const H2D: i32 = 1;
const D2H: i32 = 2;

pub struct Gateway {
    stream: Stream,
    h_in: *mut f32,
    h_out: *mut f32,
    d_in: *mut c_void,
    d_out: *mut c_void,
    cap: usize,
}

fn cuda(rc: i32) -> Result<(), i32> {
    if rc == 0 { Ok(()) } else { Err(rc) }
}

impl Gateway {
    pub fn new(cap: usize) -> Result<Self, i32> {
        let bytes = cap * 4;
        let (mut stream, mut h_in, mut h_out, mut d_in, mut d_out) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
        unsafe {
            cuda(cudaStreamCreateWithFlags(&mut stream, 1))?;
            cuda(cudaMallocHost(&mut h_in, bytes))?;
            cuda(cudaMallocHost(&mut h_out, bytes))?;
            cuda(cudaMalloc(&mut d_in, bytes))?;
            cuda(cudaMalloc(&mut d_out, bytes))?;
        }
        Ok(Gateway { stream, h_in: h_in as *mut f32, h_out: h_out as *mut f32, d_in, d_out, cap })
    }

    pub fn filter(&mut self, readings: &[f32]) -> Result<Vec<f32>, i32> {
        let n = readings.len().min(self.cap);
        unsafe {
            std::slice::from_raw_parts_mut(self.h_in, n).copy_from_slice(&readings[..n]);
            cuda(cudaMemcpyAsync(self.d_in, self.h_in as *const c_void, n * 4, H2D, self.stream))?;
            cuda(launch_dejitter(self.d_in as *const f32, self.d_out as *mut f32, n as u32, self.stream))?;
            cuda(cudaMemcpyAsync(self.h_out as *mut c_void, self.d_out, n * 4, D2H, self.stream))?;
            cuda(cudaStreamSynchronize(self.stream))?;
            Ok(std::slice::from_raw_parts(self.h_out, n).to_vec())
        }
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        unsafe {
            cudaStreamSynchronize(self.stream);
            cudaFree(self.d_in);
            cudaFree(self.d_out);
            cudaFreeHost(self.h_in as *mut c_void);
            cudaFreeHost(self.h_out as *mut c_void);
            cudaStreamDestroy(self.stream);
        }
    }
}
