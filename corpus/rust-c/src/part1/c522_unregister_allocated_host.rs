//! case: an I/O buffer pool (runtime API through cudarc's `runtime::sys`) holds either caller memory page-locked with `cudaHostRegister` or memory from `cudaMallocHost`; its release path calls `cudaHostUnregister` for both kinds, including the `cudaMallocHost` one, which was never registered
//! expect: mismatched_free=1
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys;

pub enum IoBuffer {
    /// A caller's Vec, page-locked in place.
    Registered(Vec<u8>),
    /// A fresh pinned allocation for requests larger than any caller buffer.
    Allocated { ptr: *mut c_void, len: usize },
}

impl IoBuffer {
    pub fn register(mut data: Vec<u8>) -> Result<Self, sys::cudaError_t> {
        let rc = unsafe { sys::cudaHostRegister(data.as_mut_ptr() as *mut c_void, data.len(), sys::cudaHostRegisterDefault) };
        if rc != sys::cudaError_t::cudaSuccess {
            return Err(rc);
        }
        Ok(IoBuffer::Registered(data))
    }

    pub fn allocate(len: usize) -> Result<Self, sys::cudaError_t> {
        let mut ptr = null_mut();
        let rc = unsafe { sys::cudaMallocHost(&mut ptr, len) };
        if rc != sys::cudaError_t::cudaSuccess {
            return Err(rc);
        }
        Ok(IoBuffer::Allocated { ptr, len })
    }

    pub fn as_ptr(&self) -> *const c_void {
        match self {
            IoBuffer::Registered(v) => v.as_ptr() as *const c_void,
            IoBuffer::Allocated { ptr, .. } => *ptr,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            IoBuffer::Registered(v) => v.len(),
            IoBuffer::Allocated { len, .. } => *len,
        }
    }
}

pub struct IoPool {
    free: Vec<IoBuffer>,
}

impl IoPool {
    pub fn new() -> Self {
        Self { free: Vec::new() }
    }

    pub fn give_back(&mut self, buf: IoBuffer) {
        self.free.push(buf);
    }

    /// Drops every pooled buffer; the caller has synchronized the device.
    pub fn trim(&mut self) {
        for buf in self.free.drain(..) {
            match buf {
                IoBuffer::Registered(mut v) => unsafe {
                    sys::cudaHostUnregister(v.as_mut_ptr() as *mut c_void);
                },
                IoBuffer::Allocated { ptr, .. } => unsafe {
                    sys::cudaHostUnregister(ptr); // EXPECT: mismatched_free
                },
            }
        }
    }
}
