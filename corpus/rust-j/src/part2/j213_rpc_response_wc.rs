//! case: inference RPC server stages responses in `cudaHostAlloc(.., cudaHostAllocWriteCombined)` memory (raw FFI) and serializes them by reading that buffer on the host after the copy; the response arena's Drop then releases it with `libc::free`
//! expect: write_combined_host_read=1, mismatched_free=1

use std::ffi::c_void;
use std::io::Write;

type CudaStreamT = *mut c_void;

const CUDA_HOST_ALLOC_WRITE_COMBINED: u32 = 4;
const CUDA_MEMCPY_DEVICE_TO_HOST: i32 = 2;

#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaHostAlloc(p_host: *mut *mut c_void, size: usize, flags: u32) -> i32;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: i32, stream: CudaStreamT) -> i32;
    fn cudaStreamSynchronize(stream: CudaStreamT) -> i32;
}

#[derive(Debug)]
pub struct RpcError(pub String);

pub struct ResponseArena {
    host: *mut c_void,
    capacity: usize,
    stream: CudaStreamT,
}

unsafe impl Send for ResponseArena {}

impl ResponseArena {
    pub fn new(capacity: usize, stream: CudaStreamT) -> Result<Self, RpcError> {
        let mut host = std::ptr::null_mut();
        let rc = unsafe { cudaHostAlloc(&mut host, capacity, CUDA_HOST_ALLOC_WRITE_COMBINED) };
        if rc != 0 {
            return Err(RpcError(format!("cudaHostAlloc: {rc}")));
        }
        Ok(Self { host, capacity, stream })
    }

    /// Copies `len` logits bytes from the device and frames them as a length-prefixed message.
    pub fn write_response<W: Write>(&mut self, request_id: u64, logits_dev: *const c_void, len: usize, w: &mut W) -> Result<(), RpcError> {
        if len > self.capacity {
            return Err(RpcError(format!("response of {len} bytes exceeds arena")));
        }
        let rc = unsafe { cudaMemcpyAsync(self.host, logits_dev, len, CUDA_MEMCPY_DEVICE_TO_HOST, self.stream) };
        if rc != 0 {
            return Err(RpcError(format!("cudaMemcpyAsync: {rc}")));
        }
        let rc = unsafe { cudaStreamSynchronize(self.stream) };
        if rc != 0 {
            return Err(RpcError(format!("cudaStreamSynchronize: {rc}")));
        }
        let mut frame = Vec::with_capacity(len + 12);
        frame.extend_from_slice(&request_id.to_le_bytes());
        frame.extend_from_slice(&(len as u32).to_le_bytes());
        frame.extend_from_slice(unsafe { std::slice::from_raw_parts(self.host as *const u8, len) }); // EXPECT: write_combined_host_read
        w.write_all(&frame).map_err(|e| RpcError(e.to_string()))
    }
}

impl Drop for ResponseArena {
    fn drop(&mut self) {
        unsafe {
            cudaStreamSynchronize(self.stream);
            libc::free(self.host); // EXPECT: mismatched_free
        }
    }
}
