//! case: object-store compression tier (cudarc + a vendor GPU LZ library through extern "C"): raw device addresses from device_ptr are handed to the library and logged as hex integers, never dereferenced on the host; the compressed size comes back through a small device word copied into a stack array after synchronize (near-miss)
//! expect: none

use cudarc::driver::sys::{CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, PinnedHostSlice};
use std::sync::Arc;

#[link(name = "gpulz")]
unsafe extern "C" {
    /// Enqueues compression of `in_bytes` at `d_in` into `d_out` on `stream`; writes the
    /// compressed size to the device word at `d_out_size`.
    fn gpulz_compress_async(d_in: CUdeviceptr, in_bytes: usize, d_out: CUdeviceptr, out_cap: usize, d_out_size: CUdeviceptr, level: i32, stream: CUstream) -> i32;
    fn gpulz_max_compressed_size(in_bytes: usize) -> usize;
}

pub struct CompressionTier {
    stream: Arc<CudaStream>,
    d_out: CudaSlice<u8>,
    d_size: CudaSlice<u64>,
    out_host: PinnedHostSlice<u8>,
    level: i32,
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

impl CompressionTier {
    pub fn new(ctx: &Arc<CudaContext>, max_object: usize, level: i32) -> Res<Self> {
        let stream = ctx.new_stream()?;
        let cap = unsafe { gpulz_max_compressed_size(max_object) };
        Ok(CompressionTier {
            d_out: stream.alloc_zeros(cap)?,
            d_size: stream.alloc_zeros(1)?,
            out_host: unsafe { ctx.alloc_pinned_with_flags(cap, 0)? },
            level,
            stream,
        })
    }

    /// Compresses an object already resident on the device; returns the compressed bytes.
    pub fn compress(&mut self, object: &CudaSlice<u8>) -> Res<Vec<u8>> {
        let cap = self.d_out.len();
        let rc = {
            let (d_in, _rin) = object.device_ptr(&self.stream);
            let (d_out, _rout) = self.d_out.device_ptr_mut(&self.stream);
            let (d_size, _rsize) = self.d_size.device_ptr_mut(&self.stream);
            eprintln!("gpulz: {} bytes at {d_in:#x} -> {d_out:#x} (cap {cap})", object.len());
            unsafe { gpulz_compress_async(d_in, object.len(), d_out, cap, d_size, self.level, self.stream.cu_stream()) }
        };
        if rc != 0 {
            return Err(format!("gpulz_compress_async failed: {rc}").into());
        }
        self.stream.synchronize()?;
        let mut size = [0u64; 1];
        self.stream.memcpy_dtoh(&self.d_size, &mut size)?;
        let len = (size[0] as usize).min(cap);
        self.stream.memcpy_dtoh(&self.d_out, &mut self.out_host)?;
        self.stream.synchronize()?;
        Ok(self.out_host.as_slice()?[..len].to_vec())
    }
}
