//! case: fraud-scoring batcher over cudarc's runtime sys bindings; its transaction staging buffer comes from cudaMallocHost, but teardown first "unpins" it with cudaHostUnregister (it was never registered) and then frees it with cudaFreeHost
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::ptr;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys;

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Txn {
    pub amount_cents: i64,
    pub merchant: u32,
    pub hour: u8,
    pub country: u8,
    pub card_present: u8,
    pub _pad: u8,
}

pub struct FraudBatcher {
    stream: sys::cudaStream_t,
    staging: *mut Txn,
    device: *mut c_void,
    capacity: usize,
    len: usize,
}

impl FraudBatcher {
    pub fn new(capacity: usize) -> Result<Self, RuntimeError> {
        let mut stream: sys::cudaStream_t = ptr::null_mut();
        let mut staging: *mut c_void = ptr::null_mut();
        let mut device: *mut c_void = ptr::null_mut();
        let bytes = capacity * std::mem::size_of::<Txn>();
        unsafe {
            sys::cudaStreamCreateWithFlags(&mut stream, sys::cudaStreamNonBlocking).result()?;
            sys::cudaMallocHost(&mut staging, bytes).result()?;
            sys::cudaMalloc(&mut device, bytes).result()?;
        }
        Ok(FraudBatcher { stream, staging: staging as *mut Txn, device, capacity, len: 0 })
    }

    /// Queues a transaction; returns true when the batch is full and should be flushed.
    pub fn push(&mut self, t: Txn) -> bool {
        if self.len < self.capacity {
            unsafe { self.staging.add(self.len).write(t) };
            self.len += 1;
        }
        self.len == self.capacity
    }

    /// Uploads the batch for the scoring kernel (launched by the model runtime on the same
    /// stream) and waits, so the staging buffer can be refilled.
    pub fn flush(&mut self) -> Result<usize, RuntimeError> {
        let n = std::mem::replace(&mut self.len, 0);
        if n == 0 {
            return Ok(0);
        }
        unsafe {
            sys::cudaMemcpyAsync(
                self.device,
                self.staging as *const c_void,
                n * std::mem::size_of::<Txn>(),
                sys::cudaMemcpyKind::cudaMemcpyHostToDevice,
                self.stream,
            )
            .result()?;
            sys::cudaStreamSynchronize(self.stream).result()?;
        }
        Ok(n)
    }
}

impl Drop for FraudBatcher {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cudaStreamSynchronize(self.stream);
            let _ = sys::cudaHostUnregister(self.staging as *mut c_void); // EXPECT: mismatched_free
            let _ = sys::cudaFreeHost(self.staging as *mut c_void);
            let _ = sys::cudaFree(self.device);
            let _ = sys::cudaStreamDestroy(self.stream);
        }
    }
}
