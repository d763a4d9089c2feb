//! case: a packet-capture buffer comes from `posix_memalign`, is page-locked in place with cuMemHostRegister for async uploads, and on teardown waits for the stream, unregisters, and gives the memory back to the C heap with `free`
//! expect: none

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, DriverError};

const PAGE: usize = 4096;

/// Receive ring filled by a NIC poller, uploaded in chunks to the device.
pub struct CaptureBuffer {
    ctx: Arc<CudaContext>,
    host: *mut c_void,
    bytes: usize,
    device: sys::CUdeviceptr,
    stream: sys::CUstream,
}

impl CaptureBuffer {
    pub fn new(ctx: Arc<CudaContext>, bytes: usize) -> Result<Self, DriverError> {
        let bytes = bytes.div_ceil(PAGE) * PAGE;
        ctx.bind_to_thread()?;
        let mut host: *mut c_void = null_mut();
        let rc = unsafe { libc::posix_memalign(&mut host, PAGE, bytes) };
        assert_eq!(rc, 0, "posix_memalign failed");
        let mut device: sys::CUdeviceptr = 0;
        let mut stream: sys::CUstream = null_mut();
        unsafe {
            sys::cuMemHostRegister_v2(host, bytes, sys::CU_MEMHOSTREGISTER_PORTABLE).result()?;
            sys::cuMemAlloc_v2(&mut device, bytes).result()?;
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
        }
        Ok(Self { ctx, host, bytes, device, stream })
    }

    /// The region the poller writes packets into. Callers only write it between flushes.
    pub fn fill_region(&mut self) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.host as *mut u8, self.bytes) }
    }

    /// Uploads `[off, off + len)` asynchronously and waits before the poller may refill it.
    pub fn flush(&mut self, off: usize, len: usize) -> Result<(), DriverError> {
        assert!(off + len <= self.bytes);
        unsafe {
            let src = (self.host as *const u8).add(off) as *const c_void;
            sys::cuMemcpyHtoDAsync_v2(self.device + off as u64, src, len, self.stream).result()?;
            sys::cuStreamSynchronize(self.stream).result()
        }
    }
}

impl Drop for CaptureBuffer {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        unsafe {
            sys::cuStreamSynchronize(self.stream);
            sys::cuMemHostUnregister(self.host);
            libc::free(self.host);
            sys::cuMemFree_v2(self.device);
            sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

pub fn capture(ctx: Arc<CudaContext>, packets: &[Vec<u8>]) -> Result<usize, DriverError> {
    let mut buf = CaptureBuffer::new(ctx, 8 << 20)?;
    let mut off = 0;
    for pkt in packets {
        if off + pkt.len() > buf.bytes {
            break;
        }
        buf.fill_region()[off..off + pkt.len()].copy_from_slice(pkt);
        buf.flush(off, pkt.len())?;
        off += pkt.len();
    }
    Ok(off)
}
