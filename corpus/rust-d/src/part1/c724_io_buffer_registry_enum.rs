//! case: an I/O engine keeps buffers of three kinds in one enum (device memory, pinned host memory, a page-locked Vec) and releases each kind with its own function in a `match` in Drop; buffers move between slots with `Option::take`
//! expect: none

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUdeviceptr};

pub enum IoBuffer {
    Device { ptr: CUdeviceptr, bytes: usize },
    Pinned { ptr: *mut c_void, bytes: usize },
    Registered { data: Vec<u8> },
}

impl IoBuffer {
    pub fn device(bytes: usize) -> Result<Self, DriverError> {
        let mut ptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes).result()? };
        Ok(IoBuffer::Device { ptr, bytes })
    }

    pub fn pinned(bytes: usize) -> Result<Self, DriverError> {
        let mut ptr = null_mut();
        unsafe { sys::cuMemHostAlloc(&mut ptr, bytes, sys::CU_MEMHOSTALLOC_PORTABLE).result()? };
        Ok(IoBuffer::Pinned { ptr, bytes })
    }

    /// Page-locks memory read from disk so DMA can use it directly.
    pub fn registered(mut data: Vec<u8>) -> Result<Self, DriverError> {
        unsafe {
            sys::cuMemHostRegister_v2(data.as_mut_ptr().cast(), data.len(), sys::CU_MEMHOSTREGISTER_PORTABLE).result()?;
        }
        Ok(IoBuffer::Registered { data })
    }

    pub fn len(&self) -> usize {
        match self {
            IoBuffer::Device { bytes, .. } | IoBuffer::Pinned { bytes, .. } => *bytes,
            IoBuffer::Registered { data } => data.len(),
        }
    }
}

impl Drop for IoBuffer {
    fn drop(&mut self) {
        // Callers synchronize the streams that used a buffer before giving it back.
        unsafe {
            match self {
                IoBuffer::Device { ptr, .. } => {
                    let _ = sys::cuMemFree_v2(*ptr);
                }
                IoBuffer::Pinned { ptr, .. } => {
                    let _ = sys::cuMemFreeHost(*ptr);
                }
                IoBuffer::Registered { data } => {
                    let _ = sys::cuMemHostUnregister(data.as_mut_ptr().cast());
                }
            }
        }
    }
}

pub struct BufferRegistry {
    slots: Vec<Option<IoBuffer>>,
}

impl BufferRegistry {
    pub fn new(n: usize) -> Self {
        Self { slots: (0..n).map(|_| None).collect() }
    }

    pub fn put(&mut self, slot: usize, buf: IoBuffer) -> Option<IoBuffer> {
        self.slots[slot].replace(buf)
    }

    pub fn take(&mut self, slot: usize) -> Option<IoBuffer> {
        self.slots[slot].take()
    }

    /// Moves a buffer to another slot; whatever was there is released.
    pub fn move_to(&mut self, from: usize, to: usize) {
        if let Some(buf) = self.slots[from].take() {
            drop(self.slots[to].replace(buf));
        }
    }

    pub fn bytes_held(&self) -> usize {
        self.slots.iter().flatten().map(IoBuffer::len).sum()
    }
}
