//! case: an enum of host/device buffers (cudart) whose release() frees the device arm with cudaFreeHost
//! expect: mismatched_free=1
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys;

#[derive(Debug)]
pub enum Buffer {
    Host { ptr: *mut c_void, bytes: usize },
    Device { ptr: *mut c_void, bytes: usize },
}

#[derive(Debug)]
pub struct CudaErr(pub sys::cudaError_t);

fn ok(e: sys::cudaError_t) -> Result<(), CudaErr> {
    if e == sys::cudaError_t::cudaSuccess { Ok(()) } else { Err(CudaErr(e)) }
}

impl Buffer {
    pub fn host(bytes: usize) -> Result<Buffer, CudaErr> {
        let mut ptr = null_mut();
        ok(unsafe { sys::cudaMallocHost(&mut ptr, bytes) })?;
        Ok(Buffer::Host { ptr, bytes })
    }

    pub fn device(bytes: usize) -> Result<Buffer, CudaErr> {
        let mut ptr = null_mut();
        ok(unsafe { sys::cudaMalloc(&mut ptr, bytes) })?;
        Ok(Buffer::Device { ptr, bytes })
    }

    pub fn bytes(&self) -> usize {
        match self {
            Buffer::Host { bytes, .. } | Buffer::Device { bytes, .. } => *bytes,
        }
    }

    /// Gives the memory back to CUDA.
    pub fn release(self) -> Result<(), CudaErr> {
        match self {
            Buffer::Host { ptr, .. } => ok(unsafe { sys::cudaFreeHost(ptr) }),
            Buffer::Device { ptr, .. } => ok(unsafe { sys::cudaFreeHost(ptr) }), // EXPECT: mismatched_free
        }
    }
}

pub fn run() -> Result<(), CudaErr> {
    let plan = [(true, 1 << 16), (false, 1 << 20), (true, 1 << 12)];
    let mut buffers = Vec::new();
    for (on_host, bytes) in plan {
        let b = if on_host { Buffer::host(bytes)? } else { Buffer::device(bytes)? };
        buffers.push(b);
    }
    let total: usize = buffers.iter().map(Buffer::bytes).sum();
    println!("allocated {total} bytes in {} buffers", buffers.len());
    for b in buffers {
        b.release()?;
    }
    Ok(())
}
