//! case: an audio streamer double-buffers through two cuMemAllocHost slots but refills a slot while its previous async upload may still be reading it
//! expect: missing_sync=1
use std::ffi::c_void;

use cudarc::driver::{sys, DriverError};

const SLOT_SAMPLES: usize = 1 << 16;

pub struct AudioStreamer {
    slots: [*mut f32; 2],
    dev: sys::CUdeviceptr,
    stream: sys::CUstream,
    written: usize,
}

impl AudioStreamer {
    pub fn new() -> Result<Self, DriverError> {
        let mut s = Self { slots: [std::ptr::null_mut(); 2], dev: 0, stream: std::ptr::null_mut(), written: 0 };
        unsafe {
            sys::cuStreamCreate(&mut s.stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAlloc_v2(&mut s.dev, SLOT_SAMPLES * 4 * 64).result()?;
            for slot in s.slots.iter_mut() {
                let mut p: *mut c_void = std::ptr::null_mut();
                sys::cuMemAllocHost_v2(&mut p, SLOT_SAMPLES * 4).result()?;
                *slot = p.cast();
            }
        }
        Ok(s)
    }

    /// Uploads `block` (at most SLOT_SAMPLES samples) to the next position of the device ring.
    pub fn push(&mut self, block: &[f32]) -> Result<(), DriverError> {
        let slot = self.slots[self.written % 2];
        let n = block.len().min(SLOT_SAMPLES);
        let host = unsafe { std::slice::from_raw_parts_mut(slot, SLOT_SAMPLES) };
        host[..n].copy_from_slice(&block[..n]); // EXPECT: missing_sync
        let dst = self.dev + ((self.written % 64) * SLOT_SAMPLES * 4) as u64;
        unsafe { sys::cuMemcpyHtoDAsync_v2(dst, slot.cast(), n * 4, self.stream).result()? };
        self.written += 1;
        Ok(())
    }

    pub fn flush(&self) -> Result<(), DriverError> {
        unsafe { sys::cuStreamSynchronize(self.stream).result() }
    }
}

impl Drop for AudioStreamer {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            for p in self.slots {
                let _ = sys::cuMemFreeHost(p.cast());
            }
            let _ = sys::cuMemFree_v2(self.dev);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

pub fn play(blocks: impl Iterator<Item = Vec<f32>>) -> Result<(), DriverError> {
    let mut s = AudioStreamer::new()?;
    for b in blocks {
        s.push(&b)?;
    }
    s.flush()
}
