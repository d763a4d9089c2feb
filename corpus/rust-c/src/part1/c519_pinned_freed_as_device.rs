//! case: a readback ring built on cudarc's `driver::result` layer allocates its host slots with `malloc_host` but the shutdown path releases them with `free_sync` (cuMemFree of pinned host memory: refused, the memory leaks)
//! expect: mismatched_free=1
use std::ffi::c_void;

use cudarc::driver::{result, sys};

struct Slot {
    host: *mut c_void,
    bytes: usize,
    in_use: bool,
}

pub struct ReadbackRing {
    slots: Vec<Slot>,
    dev: sys::CUdeviceptr,
    stream: sys::CUstream,
}

impl ReadbackRing {
    pub fn new(slot_bytes: usize, depth: usize) -> Result<Self, result::DriverError> {
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        let dev = unsafe { result::malloc_sync(slot_bytes)? };
        let slots = (0..depth)
            .map(|_| {
                let host = unsafe { result::malloc_host(slot_bytes, 0)? };
                Ok(Slot { host, bytes: slot_bytes, in_use: false })
            })
            .collect::<Result<Vec<_>, result::DriverError>>()?;
        Ok(Self { slots, dev, stream })
    }

    /// Copies the device buffer into a free slot and returns the slot index.
    pub fn capture(&mut self) -> Result<Option<usize>, result::DriverError> {
        let Some(i) = self.slots.iter().position(|s| !s.in_use) else {
            return Ok(None);
        };
        let slot = &mut self.slots[i];
        let dst = unsafe { std::slice::from_raw_parts_mut(slot.host as *mut u8, slot.bytes) };
        unsafe { result::memcpy_dtoh_async(dst, self.dev, self.stream)? };
        slot.in_use = true;
        Ok(Some(i))
    }

    pub fn shutdown(mut self) -> Result<(), result::DriverError> {
        unsafe { result::stream::synchronize(self.stream)? };
        for slot in self.slots.drain(..) {
            unsafe { result::free_sync(slot.host as sys::CUdeviceptr)? }; // EXPECT: mismatched_free
        }
        unsafe {
            result::free_sync(self.dev)?;
            result::stream::destroy(self.stream)?;
        }
        Ok(())
    }
}
