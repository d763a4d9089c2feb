//! case: frame sinks behind &dyn FrameSink; the GPU sink stages frames in write-combined memory and its checksum() (used for logging) reads that memory back
//! expect: write_combined_host_read=1
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys;
use cudarc::driver::{CudaContext, DriverError};

pub trait FrameSink {
    fn push(&mut self, frame: &[u8]);
    fn checksum(&self) -> u32;
}

pub struct CpuSink {
    frames: Vec<Vec<u8>>,
}

impl FrameSink for CpuSink {
    fn push(&mut self, frame: &[u8]) {
        self.frames.push(frame.to_vec());
    }
    fn checksum(&self) -> u32 {
        self.frames.iter().flatten().fold(0u32, |a, &b| a.rotate_left(5) ^ b as u32)
    }
}

pub struct GpuSink {
    staging: *mut u8,
    cap: usize,
    used: usize,
}

impl GpuSink {
    pub fn new(cap: usize) -> Result<GpuSink, DriverError> {
        let mut p: *mut c_void = null_mut();
        let flags = sys::CU_MEMHOSTALLOC_WRITECOMBINED | sys::CU_MEMHOSTALLOC_PORTABLE;
        unsafe { sys::cuMemHostAlloc(&mut p, cap, flags) }.result()?;
        Ok(GpuSink { staging: p as *mut u8, cap, used: 0 })
    }
}

impl FrameSink for GpuSink {
    fn push(&mut self, frame: &[u8]) {
        let n = frame.len().min(self.cap - self.used);
        unsafe { std::ptr::copy_nonoverlapping(frame.as_ptr(), self.staging.add(self.used), n) };
        self.used += n;
    }
    fn checksum(&self) -> u32 {
        let staged = unsafe { std::slice::from_raw_parts(self.staging, self.used) };
        staged.iter().fold(0u32, |a, &b| a.rotate_left(5) ^ b as u32) // EXPECT: write_combined_host_read
    }
}

impl Drop for GpuSink {
    fn drop(&mut self) {
        unsafe { let _ = sys::cuMemFreeHost(self.staging as *mut c_void); }
    }
}

fn log_sink(name: &str, sink: &dyn FrameSink) {
    println!("{name}: checksum {:08x}", sink.checksum());
}

pub fn run() -> Result<(), DriverError> {
    let _ctx = CudaContext::new(0)?;
    let mut sinks: Vec<(&str, Box<dyn FrameSink>)> =
        vec![("cpu", Box::new(CpuSink { frames: Vec::new() })), ("gpu", Box::new(GpuSink::new(1 << 20)?))];
    let frame = [7u8; 4096];
    for (name, sink) in sinks.iter_mut() {
        sink.push(&frame);
        log_sink(name, sink.as_ref());
    }
    Ok(())
}
