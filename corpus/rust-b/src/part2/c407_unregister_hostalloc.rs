//! case: I/O buffers moved from registered Vecs to cuMemHostAlloc, but shutdown still unregisters them before freeing
//! expect: mismatched_free=1
use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, DriverError};

/// A pinned buffer shared by the reader thread and the GPU feeder.
pub struct IoBuffer {
    ptr: *mut c_void,
    bytes: usize,
}

unsafe impl Send for IoBuffer {}
unsafe impl Sync for IoBuffer {}

pub struct IoBuffers {
    ctx: Arc<CudaContext>,
    buffers: Vec<IoBuffer>,
}

impl IoBuffers {
    pub fn new(ctx: Arc<CudaContext>, count: usize, bytes: usize) -> Result<Self, DriverError> {
        ctx.bind_to_thread()?;
        let mut buffers = Vec::with_capacity(count);
        for _ in 0..count {
            let mut ptr = std::ptr::null_mut();
            // Was: a Vec<u8> registered with cuMemHostRegister. Now allocated pinned directly.
            unsafe { sys::cuMemHostAlloc(&mut ptr, bytes, sys::CU_MEMHOSTALLOC_PORTABLE).result()? };
            buffers.push(IoBuffer { ptr, bytes });
        }
        Ok(Self { ctx, buffers })
    }

    pub fn fill_from(&mut self, idx: usize, src: &[u8]) {
        let b = &mut self.buffers[idx];
        let n = src.len().min(b.bytes);
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), b.ptr.cast::<u8>(), n) };
    }

    /// Releases every buffer; called once the feeder thread has been joined.
    pub fn shutdown(&mut self) -> Result<(), DriverError> {
        self.ctx.bind_to_thread()?;
        for b in self.buffers.drain(..) {
            unsafe {
                sys::cuMemHostUnregister(b.ptr).result()?; // EXPECT: mismatched_free
                sys::cuMemFreeHost(b.ptr).result()?;
            }
        }
        Ok(())
    }
}

pub fn feed(ctx: Arc<CudaContext>, chunks: &[Vec<u8>]) -> Result<(), DriverError> {
    let mut io = IoBuffers::new(ctx.clone(), 2, 1 << 20)?;
    let stream = ctx.default_stream();
    let mut dev: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut dev, 1 << 20).result()? };
    for (i, chunk) in chunks.iter().enumerate() {
        let slot = i % 2;
        stream.synchronize()?;
        io.fill_from(slot, chunk);
        let n = chunk.len().min(1 << 20);
        unsafe { sys::cuMemcpyHtoDAsync_v2(dev, io.buffers[slot].ptr, n, stream.cu_stream()).result()? };
    }
    stream.synchronize()?;
    unsafe { sys::cuMemFree_v2(dev).result()? };
    io.shutdown()
}
