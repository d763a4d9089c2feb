//! A pool of page-locked frame-sized slots shared by upload and readback.

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdeviceptr};

pub struct Slot {
    ptr: *mut u8,
    bytes: usize,
    index: usize,
}

impl Slot {
    pub fn as_ptr<T>(&self) -> *mut T {
        self.ptr.cast()
    }
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

pub struct PinnedPool {
    slots: Vec<*mut u8>,
    free: Vec<usize>,
    slot_bytes: usize,
}

impl PinnedPool {
    pub fn new(count: usize, slot_bytes: usize) -> Result<Self, result::DriverError> {
        let mut slots = Vec::with_capacity(count);
        for _ in 0..count {
            let mut p: *mut c_void = null_mut();
            // Frames are streamed to the GPU: write-combined, portable across contexts.
            unsafe {
                sys::cuMemHostAlloc(&mut p, slot_bytes, sys::CU_MEMHOSTALLOC_WRITECOMBINED | sys::CU_MEMHOSTALLOC_PORTABLE)
                    .result()?;
            }
            slots.push(p.cast::<u8>());
        }
        Ok(Self { free: (0..count).rev().collect(), slots, slot_bytes })
    }

    pub fn acquire(&mut self) -> Option<Slot> {
        let index = self.free.pop()?;
        Some(Slot { ptr: self.slots[index], bytes: self.slot_bytes, index })
    }

    pub fn release(&mut self, slot: Slot) {
        debug_assert!(!self.free.contains(&slot.index));
        self.free.push(slot.index);
    }
}

impl Drop for PinnedPool {
    fn drop(&mut self) {
        for &p in &self.slots {
            unsafe {
                let _ = result::free_sync(p as CUdeviceptr); // EXPECT: mismatched_free
            }
        }
    }
}
