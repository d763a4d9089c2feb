//! case: a checkpoint writer (driver API through cudarc's sys) stages tensors through a buffer from cuMemAllocHost_v2 and writes them to a file; its Drop releases the staging buffer with cuMemFree_v2, the device allocator's free
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::io::Write;
use std::ptr::null_mut;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUdeviceptr, CUstream};

pub struct TensorRef {
    pub name: String,
    pub ptr: CUdeviceptr,
    pub bytes: usize,
}

pub struct CheckpointWriter {
    stream: CUstream,
    staging: *mut c_void,
    staging_bytes: usize,
}

impl CheckpointWriter {
    pub fn new(staging_bytes: usize) -> Result<Self, DriverError> {
        let mut stream = null_mut();
        let mut staging = null_mut();
        unsafe {
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAllocHost_v2(&mut staging, staging_bytes).result()?;
        }
        Ok(Self { stream, staging, staging_bytes })
    }

    pub fn write<W: Write>(&mut self, out: &mut W, tensors: &[TensorRef]) -> std::io::Result<u64> {
        let mut written = 0u64;
        for t in tensors {
            writeln!(out, "{} {}", t.name, t.bytes)?;
            let mut offset = 0;
            while offset < t.bytes {
                let n = (t.bytes - offset).min(self.staging_bytes);
                let copied = unsafe {
                    sys::cuMemcpyDtoHAsync_v2(self.staging, t.ptr + offset as u64, n, self.stream)
                        .result()
                        .and_then(|()| sys::cuStreamSynchronize(self.stream).result())
                };
                copied.map_err(|e| std::io::Error::other(format!("{e:?}")))?;
                let bytes = unsafe { std::slice::from_raw_parts(self.staging as *const u8, n) };
                out.write_all(bytes)?;
                offset += n;
                written += n as u64;
            }
        }
        Ok(written)
    }
}

impl Drop for CheckpointWriter {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFree_v2(self.staging as CUdeviceptr); // EXPECT: mismatched_free
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
