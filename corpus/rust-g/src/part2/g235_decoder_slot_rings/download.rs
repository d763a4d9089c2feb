//! Decoded-frame download ring: cached pinned slots (cuMemAllocHost) the host reads.

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUstream};

pub struct FrameSlot {
    pub host: *mut u8,
    pub ready: CUevent,
    pub pending: bool,
}

pub struct DownloadRing {
    pub slots: Vec<FrameSlot>,
    pub frame_bytes: usize,
}

impl DownloadRing {
    pub fn new(count: usize, frame_bytes: usize) -> Result<Self, DriverError> {
        let slots = (0..count)
            .map(|_| {
                let mut host: *mut c_void = null_mut();
                let mut ready = null_mut();
                unsafe {
                    sys::cuMemAllocHost_v2(&mut host, frame_bytes).result()?;
                    sys::cuEventCreate(&mut ready, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32).result()?;
                }
                Ok(FrameSlot { host: host.cast(), ready, pending: false })
            })
            .collect::<Result<Vec<_>, DriverError>>()?;
        Ok(Self { slots, frame_bytes })
    }

    pub fn enqueue(&mut self, i: usize, src: CUdeviceptr, stream: CUstream) -> Result<(), DriverError> {
        let slot = &mut self.slots[i];
        unsafe {
            sys::cuEventSynchronize(slot.ready).result()?;
            sys::cuMemcpyDtoHAsync_v2(slot.host.cast(), src, self.frame_bytes, stream).result()?;
            sys::cuEventRecord(slot.ready, stream).result()?;
        }
        slot.pending = true;
        Ok(())
    }

    /// Waits for slot `i`'s frame and hands it to `sink`.
    pub fn take<R>(&mut self, i: usize, sink: impl FnOnce(&[u8]) -> R) -> Result<Option<R>, DriverError> {
        let slot = &mut self.slots[i];
        if !slot.pending {
            return Ok(None);
        }
        unsafe { sys::cuEventSynchronize(slot.ready).result()? };
        slot.pending = false;
        let frame = unsafe { std::slice::from_raw_parts(slot.host, self.frame_bytes) };
        Ok(Some(sink(frame)))
    }
}

impl Drop for DownloadRing {
    fn drop(&mut self) {
        for s in &self.slots {
            unsafe {
                let _ = sys::cuEventSynchronize(s.ready);
                let _ = sys::cuEventDestroy_v2(s.ready);
                let _ = sys::cuMemFreeHost(s.host.cast());
            }
        }
    }
}
