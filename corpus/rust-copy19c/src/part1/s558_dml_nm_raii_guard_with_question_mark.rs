//! case: near miss: a small RAII wrapper frees its cuMemAlloc'd pointer in Drop, so the `?` early returns do not leak
//! expect: none

use cudarc::driver::sys;
use cudarc::driver::{CudaContext, DriverError};
use std::ffi::c_void;
use std::mem::size_of;

struct DeviceBuffer {
    ptr: sys::CUdeviceptr,
    bytes: usize,
}

impl DeviceBuffer {
    fn new(bytes: usize) -> Result<Self, DriverError> {
        let mut ptr: sys::CUdeviceptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes).result()? };
        Ok(DeviceBuffer { ptr, bytes })
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        unsafe {
            sys::cuMemFree_v2(self.ptr);
        }
    }
}

const N: usize = 2048;

pub fn copy_through(values: &[i64; N]) -> Result<Vec<i64>, DriverError> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let a = DeviceBuffer::new(N * size_of::<i64>())?;
    let b = DeviceBuffer::new(N * size_of::<i64>())?;
    let mut out = vec![0i64; N];
    unsafe {
        sys::cuMemcpyHtoD_v2(a.ptr, values.as_ptr() as *const c_void, a.bytes).result()?;
        sys::cuMemcpyDtoD_v2(b.ptr, a.ptr, a.bytes).result()?;
        sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, b.ptr, b.bytes).result()?;
    }
    Ok(out)
}
