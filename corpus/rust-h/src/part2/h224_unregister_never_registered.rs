//! case: RPC transport that pins user buffers with `cuMemHostRegister` and unregisters them afterwards; its oversized-message path allocates a spill buffer with `cuMemAllocHost_v2` and then releases it like the registered ones, with `cuMemHostUnregister`, on memory that was never registered
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, CudaStream, DriverError};

pub struct Transport {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    device_ring: CUdeviceptr,
    ring_bytes: usize,
    inline_limit: usize,
}

impl Transport {
    pub fn new(ctx: Arc<CudaContext>, ring_bytes: usize, inline_limit: usize) -> Result<Self, DriverError> {
        let stream = ctx.new_stream()?;
        let mut device_ring: CUdeviceptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut device_ring, ring_bytes).result()? };
        Ok(Self { ctx, stream, device_ring, ring_bytes, inline_limit })
    }

    /// Zero-copy send of a caller buffer: pinned in place for the duration of the copy.
    pub fn send_registered(&self, buf: &mut [u8]) -> Result<(), DriverError> {
        let len = buf.len().min(self.ring_bytes);
        unsafe {
            sys::cuMemHostRegister_v2(buf.as_mut_ptr().cast(), buf.len(), 0).result()?;
            sys::cuMemcpyHtoDAsync_v2(self.device_ring, buf.as_ptr().cast(), len, self.stream.cu_stream()).result()?;
        }
        self.stream.synchronize()?;
        unsafe { sys::cuMemHostUnregister(buf.as_mut_ptr().cast()).result() }
    }

    /// Messages above the inline limit are first gathered from their fragments into a spill buffer.
    pub fn send_fragments(&self, fragments: &[&[u8]]) -> Result<usize, DriverError> {
        let total: usize = fragments.iter().map(|f| f.len()).sum::<usize>().min(self.ring_bytes);
        if total <= self.inline_limit {
            return Ok(0);
        }
        let mut spill: *mut c_void = ptr::null_mut();
        unsafe { sys::cuMemAllocHost_v2(&mut spill, total).result()? };
        let mut off = 0;
        for frag in fragments {
            let n = frag.len().min(total - off);
            unsafe { ptr::copy_nonoverlapping(frag.as_ptr(), spill.cast::<u8>().add(off), n) };
            off += n;
        }
        unsafe { sys::cuMemcpyHtoDAsync_v2(self.device_ring, spill, total, self.stream.cu_stream()).result()? };
        self.stream.synchronize()?;
        unsafe { sys::cuMemHostUnregister(spill).result()? }; // EXPECT: mismatched_free
        Ok(total)
    }
}

impl Drop for Transport {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuMemFree_v2(self.device_ring);
        }
    }
}
