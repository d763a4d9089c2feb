//! case: a checkpoint writer (cudarc `runtime::sys`) stages tensors in `cudaMallocHost` memory and packs them in a `cudaMalloc` scratch buffer; `close` hands the pinned buffer to `libc::free` (C heap corruption) and the device scratch to `cudaFreeHost` (refused, leaked)
//! expect: mismatched_free=2

use std::ffi::c_void;
use std::io::Write;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys::{self as rt, cudaMemcpyKind, cudaStream_t};

pub struct CheckpointWriter<W: Write> {
    out: W,
    stream: cudaStream_t,
    host_buf: *mut c_void,
    scratch: *mut c_void,
    capacity: usize,
    written: u64,
}

impl<W: Write> CheckpointWriter<W> {
    pub fn open(out: W, stream: cudaStream_t, capacity: usize) -> Result<Self, RuntimeError> {
        let mut host_buf = std::ptr::null_mut();
        let mut scratch = std::ptr::null_mut();
        unsafe {
            rt::cudaMallocHost(&mut host_buf, capacity).result()?;
            rt::cudaMalloc(&mut scratch, capacity).result()?;
        }
        Ok(Self { out, stream, host_buf, scratch, capacity, written: 0 })
    }

    /// Packs one device tensor (already contiguous) and appends it to the file.
    pub fn write_tensor(&mut self, dev: *const c_void, bytes: usize) -> std::io::Result<()> {
        assert!(bytes <= self.capacity);
        let status = unsafe {
            rt::cudaMemcpyAsync(self.scratch, dev, bytes, cudaMemcpyKind::cudaMemcpyDeviceToDevice, self.stream);
            rt::cudaMemcpyAsync(self.host_buf, self.scratch, bytes, cudaMemcpyKind::cudaMemcpyDeviceToHost, self.stream);
            rt::cudaStreamSynchronize(self.stream)
        };
        if status != rt::cudaError::cudaSuccess {
            return Err(std::io::Error::other(format!("{status:?}")));
        }
        let staged = unsafe { std::slice::from_raw_parts(self.host_buf as *const u8, bytes) };
        self.out.write_all(&(bytes as u64).to_le_bytes())?;
        self.out.write_all(staged)?;
        self.written += bytes as u64;
        Ok(())
    }

    pub fn close(mut self) -> std::io::Result<u64> {
        self.out.flush()?;
        unsafe {
            libc::free(self.host_buf); // EXPECT: mismatched_free
            rt::cudaFreeHost(self.scratch); // EXPECT: mismatched_free
        }
        Ok(self.written)
    }
}
