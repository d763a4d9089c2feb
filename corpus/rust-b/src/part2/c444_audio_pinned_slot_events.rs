//! case: the same double-buffered audio upload with one event per slot: a slot is refilled only after cuEventSynchronize on the event recorded after its last copy
//! expect: none
use std::ffi::c_void;

use cudarc::driver::{sys, DriverError};

const SLOT_SAMPLES: usize = 1 << 16;

struct Slot {
    host: *mut f32,
    done: sys::CUevent,
    pending: bool,
}

pub struct AudioStreamer {
    slots: Vec<Slot>,
    dev: sys::CUdeviceptr,
    stream: sys::CUstream,
    written: usize,
}

impl AudioStreamer {
    pub fn new(slots: usize) -> Result<Self, DriverError> {
        let mut s = Self { slots: Vec::with_capacity(slots), dev: 0, stream: std::ptr::null_mut(), written: 0 };
        unsafe {
            sys::cuStreamCreate(&mut s.stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAlloc_v2(&mut s.dev, SLOT_SAMPLES * 4 * 64).result()?;
            for _ in 0..slots {
                let mut p: *mut c_void = std::ptr::null_mut();
                let mut ev = std::ptr::null_mut();
                sys::cuMemAllocHost_v2(&mut p, SLOT_SAMPLES * 4).result()?;
                sys::cuEventCreate(&mut ev, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32).result()?;
                s.slots.push(Slot { host: p.cast(), done: ev, pending: false });
            }
        }
        Ok(s)
    }

    pub fn push(&mut self, block: &[f32]) -> Result<(), DriverError> {
        let idx = self.written % self.slots.len();
        let slot = &mut self.slots[idx];
        if slot.pending {
            unsafe { sys::cuEventSynchronize(slot.done).result()? };
            slot.pending = false;
        }
        let n = block.len().min(SLOT_SAMPLES);
        let host = unsafe { std::slice::from_raw_parts_mut(slot.host, SLOT_SAMPLES) };
        host[..n].copy_from_slice(&block[..n]);
        let dst = self.dev + ((self.written % 64) * SLOT_SAMPLES * 4) as u64;
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(dst, slot.host.cast(), n * 4, self.stream).result()?;
            sys::cuEventRecord(slot.done, self.stream).result()?;
        }
        slot.pending = true;
        self.written += 1;
        Ok(())
    }
}

impl Drop for AudioStreamer {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            for slot in self.slots.drain(..) {
                let _ = sys::cuEventDestroy_v2(slot.done);
                let _ = sys::cuMemFreeHost(slot.host.cast());
            }
            let _ = sys::cuMemFree_v2(self.dev);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
