//! case: near-miss. Columnar export job `malloc`s a big C buffer (it is later handed to a C parquet writer that frees it), page-locks it with `cudaHostRegister` for the D2H copies, synchronizes, `cudaHostUnregister`s it, and releases it with `libc::free`: each release matches its allocator
//! expect: none

use std::ffi::c_void;

type CudaStreamT = *mut c_void;

const CUDA_HOST_REGISTER_DEFAULT: u32 = 0;
const CUDA_MEMCPY_DEVICE_TO_HOST: i32 = 2;

#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaHostRegister(ptr: *mut c_void, size: usize, flags: u32) -> i32;
    fn cudaHostUnregister(ptr: *mut c_void) -> i32;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: i32, stream: CudaStreamT) -> i32;
    fn cudaStreamSynchronize(stream: CudaStreamT) -> i32;
}

unsafe extern "C" {
    /// C parquet writer: consumes `len` bytes at `data`, does not keep the pointer.
    fn pq_write_column(writer: *mut c_void, data: *const c_void, len: usize) -> i32;
}

pub struct DeviceColumn {
    pub name: String,
    pub ptr: *const c_void,
    pub bytes: usize,
}

#[derive(Debug)]
pub enum ExportError {
    Oom(usize),
    Cuda(&'static str, i32),
    Writer(i32),
}

pub fn export_columns(columns: &[DeviceColumn], writer: *mut c_void, stream: CudaStreamT) -> Result<usize, ExportError> {
    let total: usize = columns.iter().map(|c| c.bytes).sum();
    let buf = unsafe { libc::malloc(total) };
    if buf.is_null() {
        return Err(ExportError::Oom(total));
    }
    let result = (|| {
        let rc = unsafe { cudaHostRegister(buf, total, CUDA_HOST_REGISTER_DEFAULT) };
        if rc != 0 {
            return Err(ExportError::Cuda("cudaHostRegister", rc));
        }
        let mut offset = 0;
        for c in columns {
            let dst = unsafe { (buf as *mut u8).add(offset) } as *mut c_void;
            let rc = unsafe { cudaMemcpyAsync(dst, c.ptr, c.bytes, CUDA_MEMCPY_DEVICE_TO_HOST, stream) };
            if rc != 0 {
                unsafe {
                    cudaStreamSynchronize(stream);
                    cudaHostUnregister(buf);
                }
                return Err(ExportError::Cuda("cudaMemcpyAsync", rc));
            }
            offset += c.bytes;
        }
        let rc = unsafe { cudaStreamSynchronize(stream) };
        unsafe { cudaHostUnregister(buf) };
        if rc != 0 {
            return Err(ExportError::Cuda("cudaStreamSynchronize", rc));
        }
        let mut offset = 0;
        for c in columns {
            let rc = unsafe { pq_write_column(writer, (buf as *const u8).add(offset).cast(), c.bytes) };
            if rc != 0 {
                return Err(ExportError::Writer(rc));
            }
            offset += c.bytes;
        }
        Ok(total)
    })();
    unsafe { libc::free(buf) };
    result
}
