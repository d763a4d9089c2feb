//! Bitstream upload ring: write-combined pinned slots, only ever written by the host.

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUstream};

pub struct UploadSlot {
    pub host: *mut u8,
    pub dev: CUdeviceptr,
    pub consumed: CUevent,
}

pub struct UploadRing {
    pub slots: Vec<UploadSlot>,
    pub slot_bytes: usize,
    next: usize,
}

impl UploadRing {
    pub fn new(count: usize, slot_bytes: usize) -> Result<Self, DriverError> {
        let mut slots = Vec::with_capacity(count);
        for _ in 0..count {
            let mut host: *mut c_void = null_mut();
            let mut dev = 0;
            let mut consumed = null_mut();
            unsafe {
                sys::cuMemHostAlloc(&mut host, slot_bytes, sys::CU_MEMHOSTALLOC_WRITECOMBINED).result()?;
                sys::cuMemAlloc_v2(&mut dev, slot_bytes).result()?;
                sys::cuEventCreate(&mut consumed, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32).result()?;
            }
            slots.push(UploadSlot { host: host.cast(), dev, consumed });
        }
        Ok(Self { slots, slot_bytes, next: 0 })
    }

    /// Copies `packet` into the next free slot and enqueues its upload; returns the slot.
    pub fn push(&mut self, packet: &[u8], stream: CUstream) -> Result<usize, DriverError> {
        let i = self.next;
        self.next = (self.next + 1) % self.slots.len();
        let slot = &self.slots[i];
        let n = packet.len().min(self.slot_bytes);
        unsafe {
            // The copy that last read this slot must be done before it is rewritten.
            sys::cuEventSynchronize(slot.consumed).result()?;
            std::ptr::copy_nonoverlapping(packet.as_ptr(), slot.host, n);
            sys::cuMemcpyHtoDAsync_v2(slot.dev, slot.host.cast(), n, stream).result()?;
            sys::cuEventRecord(slot.consumed, stream).result()?;
        }
        Ok(i)
    }
}

impl Drop for UploadRing {
    fn drop(&mut self) {
        for s in &self.slots {
            unsafe {
                let _ = sys::cuEventSynchronize(s.consumed);
                let _ = sys::cuEventDestroy_v2(s.consumed);
                let _ = sys::cuMemFreeHost(s.host.cast());
                let _ = sys::cuMemFree_v2(s.dev);
            }
        }
    }
}
