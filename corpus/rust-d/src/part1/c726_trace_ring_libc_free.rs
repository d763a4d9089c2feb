//! case: a device-side trace collector (cudarc's runtime::sys) drains fixed-size trace records into a pinned buffer from cudaMallocHost, shared with a logger thread through Arc<Mutex<..>>; the buffer's Drop hands it to `libc::free`
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::mem::size_of;
use std::ptr::null_mut;
use std::sync::{Arc, Mutex};
use std::thread;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys::{self, cudaMemcpyKind, cudaStream_t};

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct TraceRecord {
    pub clock: u64,
    pub sm: u32,
    pub event: u32,
}

pub struct PinnedRecords {
    ptr: *mut TraceRecord,
    cap: usize,
}

unsafe impl Send for PinnedRecords {}

impl PinnedRecords {
    pub fn new(cap: usize) -> Result<Self, RuntimeError> {
        let mut p: *mut c_void = null_mut();
        unsafe { sys::cudaMallocHost(&mut p, cap * size_of::<TraceRecord>()).result()? };
        Ok(Self { ptr: p.cast(), cap })
    }

    pub fn as_slice(&self, n: usize) -> &[TraceRecord] {
        unsafe { std::slice::from_raw_parts(self.ptr, n.min(self.cap)) }
    }
}

impl Drop for PinnedRecords {
    fn drop(&mut self) {
        if !self.ptr.is_null() {
            unsafe { libc::free(self.ptr.cast()) }; // EXPECT: mismatched_free
        }
    }
}

pub struct TraceCollector {
    stream: cudaStream_t,
    records: Arc<Mutex<(PinnedRecords, usize)>>,
}

impl TraceCollector {
    pub fn new(stream: cudaStream_t, cap: usize) -> Result<Self, RuntimeError> {
        Ok(Self { stream, records: Arc::new(Mutex::new((PinnedRecords::new(cap)?, 0))) })
    }

    /// Copies `count` records from the device ring and waits for them.
    pub fn drain(&self, d_ring: *const c_void, count: usize) -> Result<(), RuntimeError> {
        let mut guard = self.records.lock().expect("trace buffer poisoned");
        let n = count.min(guard.0.cap);
        unsafe {
            sys::cudaMemcpyAsync(guard.0.ptr.cast(), d_ring, n * size_of::<TraceRecord>(), cudaMemcpyKind::cudaMemcpyDeviceToHost, self.stream).result()?;
            sys::cudaStreamSynchronize(self.stream).result()?;
        }
        guard.1 = n;
        Ok(())
    }

    /// Formats the last drained batch on a background thread.
    pub fn spawn_logger(&self) -> thread::JoinHandle<Vec<String>> {
        let records = Arc::clone(&self.records);
        thread::spawn(move || {
            let guard = records.lock().expect("trace buffer poisoned");
            guard.0.as_slice(guard.1).iter().map(|r| format!("{:>12} sm{:<3} ev{}", r.clock, r.sm, r.event)).collect()
        })
    }
}
