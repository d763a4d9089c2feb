use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::sys;
use cudarc::driver::{CudaStream, DevicePtr, DeviceRepr, DriverError, ValidAsZeroBits};

use super::column::GpuColumn;

/// One page-locked export area (no write-combining: the host reads it).
pub struct ExportArena {
    stream: Arc<CudaStream>,
    ptr: *mut c_void,
    bytes: usize,
}

impl ExportArena {
    pub fn new(stream: Arc<CudaStream>, bytes: usize) -> Result<Self, DriverError> {
        let mut p: *mut c_void = ptr::null_mut();
        unsafe { sys::cuMemHostAlloc(&mut p, bytes, 0).result()? };
        Ok(Self { stream, ptr: p, bytes })
    }

    pub fn export<T: DeviceRepr + ValidAsZeroBits>(&mut self, col: &GpuColumn<T>) -> Result<&[T], DriverError> {
        let bytes = col.dev.num_bytes().min(self.bytes);
        {
            let (src, _read) = col.dev.device_ptr(&self.stream);
            unsafe { sys::cuMemcpyDtoHAsync_v2(self.ptr, src, bytes, self.stream.cu_stream()).result()? };
        }
        self.stream.synchronize()?;
        Ok(unsafe { std::slice::from_raw_parts(self.ptr.cast::<T>(), bytes / std::mem::size_of::<T>()) })
    }
}

impl Drop for ExportArena {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            let _ = sys::cuMemFreeHost(self.ptr);
        }
    }
}
