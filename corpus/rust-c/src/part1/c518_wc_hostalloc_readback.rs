//! case: a profiler-style readback written against libcudart through the case's own `extern "C"` block: the host buffer comes from `cudaHostAlloc(.., cudaHostAllocWriteCombined)` and is summed on the host after the D2H copy and the stream synchronize
//! expect: write_combined_host_read=1
use std::ffi::{c_int, c_uint, c_void};
use std::ptr::null_mut;

type CudaError = c_int;
type CudaStream = *mut c_void;

const CUDA_HOST_ALLOC_WRITE_COMBINED: c_uint = 4;
const CUDA_MEMCPY_DEVICE_TO_HOST: c_int = 2;
const CUDA_STREAM_NON_BLOCKING: c_uint = 1;

unsafe extern "C" {
    fn cudaHostAlloc(p_host: *mut *mut c_void, size: usize, flags: c_uint) -> CudaError;
    fn cudaFreeHost(ptr: *mut c_void) -> CudaError;
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> CudaError;
    fn cudaFree(dev_ptr: *mut c_void) -> CudaError;
    fn cudaMemsetAsync(dev_ptr: *mut c_void, value: c_int, count: usize, stream: CudaStream) -> CudaError;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: c_int, stream: CudaStream) -> CudaError;
    fn cudaStreamCreateWithFlags(stream: *mut CudaStream, flags: c_uint) -> CudaError;
    fn cudaStreamSynchronize(stream: CudaStream) -> CudaError;
    fn cudaStreamDestroy(stream: CudaStream) -> CudaError;
}

fn check(code: CudaError, what: &str) -> Result<(), String> {
    if code == 0 { Ok(()) } else { Err(format!("{what} failed with cudaError {code}")) }
}

/// Per-SM cycle counters written by an instrumented kernel, read back and totalled.
pub struct CounterReadback {
    stream: CudaStream,
    d_counters: *mut c_void,
    h_counters: *mut c_void,
    len: usize,
}

impl CounterReadback {
    pub fn new(num_counters: usize) -> Result<Self, String> {
        let bytes = num_counters * std::mem::size_of::<u64>();
        let mut me = Self { stream: null_mut(), d_counters: null_mut(), h_counters: null_mut(), len: num_counters };
        unsafe {
            check(cudaStreamCreateWithFlags(&mut me.stream, CUDA_STREAM_NON_BLOCKING), "cudaStreamCreateWithFlags")?;
            check(cudaMalloc(&mut me.d_counters, bytes), "cudaMalloc")?;
            check(cudaHostAlloc(&mut me.h_counters, bytes, CUDA_HOST_ALLOC_WRITE_COMBINED), "cudaHostAlloc")?;
            check(cudaMemsetAsync(me.d_counters, 0, bytes, me.stream), "cudaMemsetAsync")?;
        }
        Ok(me)
    }

    pub fn device_counters(&self) -> *mut c_void {
        self.d_counters
    }

    pub fn total_cycles(&mut self) -> Result<u64, String> {
        let bytes = self.len * std::mem::size_of::<u64>();
        unsafe {
            check(cudaMemcpyAsync(self.h_counters, self.d_counters, bytes, CUDA_MEMCPY_DEVICE_TO_HOST, self.stream), "cudaMemcpyAsync")?;
            check(cudaStreamSynchronize(self.stream), "cudaStreamSynchronize")?;
        }
        let total: u64 = unsafe { std::slice::from_raw_parts(self.h_counters as *const u64, self.len) }.iter().copied().sum(); // EXPECT: write_combined_host_read
        Ok(total)
    }
}

impl Drop for CounterReadback {
    fn drop(&mut self) {
        unsafe {
            cudaStreamSynchronize(self.stream);
            cudaFreeHost(self.h_counters);
            cudaFree(self.d_counters);
            cudaStreamDestroy(self.stream);
        }
    }
}
