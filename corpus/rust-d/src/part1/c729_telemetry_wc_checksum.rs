//! case: a telemetry exporter (driver API through cudarc's sys) reads per-SM counters back into a buffer from cuMemHostAlloc with CU_MEMHOSTALLOC_WRITECOMBINED and checksums it on the host after synchronizing
//! expect: write_combined_host_read=1

use std::ffi::c_void;
use std::mem::size_of;
use std::ptr::null_mut;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUdeviceptr, CUstream};

/// Portable so exporters on every context can share the buffer; write-combined for fast DMA.
const STAGING_FLAGS: u32 = sys::CU_MEMHOSTALLOC_WRITECOMBINED | sys::CU_MEMHOSTALLOC_PORTABLE;

#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct SmCounters {
    pub cycles: u64,
    pub warps_launched: u64,
    pub l2_misses: u64,
    pub reserved: u64,
}

pub struct TelemetryExporter {
    stream: CUstream,
    host: *mut SmCounters,
    sms: usize,
}

impl TelemetryExporter {
    pub fn new(stream: CUstream, sms: usize) -> Result<Self, DriverError> {
        let mut p: *mut c_void = null_mut();
        let bytes = sms * size_of::<SmCounters>();
        unsafe {
            sys::cuMemHostAlloc(&mut p, bytes, STAGING_FLAGS).result()?;
        }
        Ok(Self { stream, host: p.cast(), sms })
    }

    /// Copies the counters from `dev` and returns (checksum, total cycles).
    pub fn export(&mut self, dev: CUdeviceptr) -> Result<(u64, u64), DriverError> {
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(self.host.cast(), dev, self.sms * size_of::<SmCounters>(), self.stream).result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
        }
        let (sum, cycles) = unsafe { std::slice::from_raw_parts(self.host, self.sms) }.iter().fold((0u64, 0u64), |(h, c), s| (h.rotate_left(5) ^ s.cycles ^ s.warps_launched ^ s.l2_misses, c + s.cycles)); // EXPECT: write_combined_host_read
        Ok((sum, cycles))
    }
}

impl Drop for TelemetryExporter {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFreeHost(self.host.cast());
        }
    }
}
