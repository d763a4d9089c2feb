//! case: a small RAII wrapper owns each cuMemAlloc_v2 allocation and frees it in Drop, so the `?` early returns between allocation and use lose nothing
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

pub struct DeviceBuffer {
    ptr: CUdeviceptr,
    bytes: usize,
}

impl DeviceBuffer {
    pub fn new(bytes: usize) -> Result<Self, CUresult> {
        let mut ptr: CUdeviceptr = 0;
        let rc = unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes) };
        if rc != CUresult::CUDA_SUCCESS {
            return Err(rc);
        }
        Ok(Self { ptr, bytes })
    }

    pub fn upload<T: Copy>(&mut self, src: &[T]) -> Result<(), CUresult> {
        let bytes = std::mem::size_of_val(src).min(self.bytes);
        let rc = unsafe { sys::cuMemcpyHtoD_v2(self.ptr, src.as_ptr() as *const c_void, bytes) };
        if rc != CUresult::CUDA_SUCCESS { Err(rc) } else { Ok(()) }
    }

    pub fn download<T: Copy>(&self, dst: &mut [T]) -> Result<(), CUresult> {
        let bytes = std::mem::size_of_val(dst).min(self.bytes);
        let rc = unsafe { sys::cuMemcpyDtoH_v2(dst.as_mut_ptr() as *mut c_void, self.ptr, bytes) };
        if rc != CUresult::CUDA_SUCCESS { Err(rc) } else { Ok(()) }
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        unsafe {
            sys::cuMemFree_v2(self.ptr);
        }
    }
}

pub fn roundtrip(values: &[i32]) -> Result<Vec<i32>, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut buf = DeviceBuffer::new(values.len() * 4).map_err(|e| format!("{e:?}"))?;
    buf.upload(values).map_err(|e| format!("{e:?}"))?;
    let mut back = vec![0i32; values.len()];
    buf.download(&mut back).map_err(|e| format!("{e:?}"))?;
    Ok(back)
}
