//! case: a device buffer wrapper frees its cuMemAlloc'd pointer in Drop, so the `?` early returns of the upload path release it too.
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, DriverError};
use std::mem::size_of;

pub struct DeviceBuffer {
    ptr: CUdeviceptr,
    bytes: usize,
}

impl DeviceBuffer {
    pub fn new(bytes: usize) -> Result<Self, DriverError> {
        let mut ptr: CUdeviceptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes).result()? };
        Ok(Self { ptr, bytes })
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        unsafe {
            sys::cuMemFree_v2(self.ptr);
        }
    }
}

const N: usize = 1 << 16;

pub fn roundtrip(data: &[f32; N]) -> Result<Vec<f32>, DriverError> {
    let _ctx = CudaContext::new(0)?;
    let buf = DeviceBuffer::new(N * size_of::<f32>())?;
    let mut back = vec![0.0f32; N];
    unsafe {
        sys::cuMemcpyHtoD_v2(buf.ptr, data.as_ptr() as *const _, buf.bytes).result()?;
        sys::cuMemcpyDtoH_v2(back.as_mut_ptr() as *mut _, buf.ptr, buf.bytes).result()?;
    }
    Ok(back)
}
