//! case: a checkpoint loader reads a shard file into a Vec, page-locks it with cuMemHostRegister, uploads it in chunks with cuMemcpyHtoDAsync, synchronizes, then unregisters it before the Vec is dropped or reused
//! expect: none

use std::fs::File;
use std::io::Read;
use std::path::Path;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUdeviceptr, CUstream};

#[derive(Debug)]
pub enum LoadError {
    Io(std::io::Error),
    Cuda(DriverError),
}

impl From<std::io::Error> for LoadError {
    fn from(e: std::io::Error) -> Self {
        LoadError::Io(e)
    }
}

impl From<DriverError> for LoadError {
    fn from(e: DriverError) -> Self {
        LoadError::Cuda(e)
    }
}

/// Page-locks a Vec's storage for as long as it lives.
struct Locked<'a> {
    data: &'a mut Vec<u8>,
}

impl<'a> Locked<'a> {
    fn lock(data: &'a mut Vec<u8>) -> Result<Self, DriverError> {
        unsafe { sys::cuMemHostRegister_v2(data.as_mut_ptr().cast(), data.len(), 0).result()? };
        Ok(Self { data })
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemHostUnregister(self.data.as_mut_ptr().cast());
        }
    }
}

pub struct ShardLoader {
    stream: CUstream,
    chunk: usize,
    buf: Vec<u8>,
}

impl ShardLoader {
    pub fn new(stream: CUstream, chunk: usize) -> Self {
        Self { stream, chunk, buf: Vec::new() }
    }

    /// Loads `path` into device memory at `dst` (at least the file's size).
    pub fn load(&mut self, path: &Path, dst: CUdeviceptr) -> Result<usize, LoadError> {
        self.buf.clear();
        File::open(path)?.read_to_end(&mut self.buf)?;
        let len = self.buf.len();
        {
            let locked = Locked::lock(&mut self.buf)?;
            let mut enqueued = Ok(());
            for (i, piece) in locked.data.chunks(self.chunk).enumerate() {
                let at = dst + (i * self.chunk) as u64;
                enqueued = unsafe { sys::cuMemcpyHtoDAsync_v2(at, piece.as_ptr().cast(), piece.len(), self.stream).result() };
                if enqueued.is_err() {
                    break;
                }
            }
            // Wait even when an enqueue failed: earlier chunks may still be reading the pages.
            let drained = unsafe { sys::cuStreamSynchronize(self.stream).result() };
            if drained.is_err() {
                std::mem::forget(locked); // never unregister pages a copy may still read
            }
            enqueued.and(drained)?;
        }
        Ok(len)
    }
}
