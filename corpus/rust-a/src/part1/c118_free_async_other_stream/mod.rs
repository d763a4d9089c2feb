//! case: raw driver API: scratch memory from cuMemAllocAsync on an allocation stream, written by a kernel on a work stream, freed with cuMemFreeAsync on the allocation stream: once without ordering (misuse), once after cuStreamWaitEvent on the kernel's event
//! expect: missing_sync=1
mod src;

use std::ffi::{c_void, CString};
use std::ptr;

use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUfunction, CUmodule, CUresult, CUstream};

fn check(r: CUresult) -> Result<(), CUresult> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(r) }
}

pub struct Scratch {
    alloc_stream: CUstream,
    work_stream: CUstream,
    kernel_done: CUevent,
    fill: CUfunction,
    _module: CUmodule,
}

impl Scratch {
    pub unsafe fn new() -> Result<Self, Box<dyn std::error::Error>> {
        let ptx = cudarc::nvrtc::compile_ptx(src::FILL_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let name = CString::new("fill")?;
        let (mut module, mut fill) = (ptr::null_mut(), ptr::null_mut());
        let (mut alloc_stream, mut work_stream, mut kernel_done) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
        let flags = sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32;
        unsafe {
            check(sys::cuModuleLoadData(&mut module, image.as_ptr().cast())).map_err(|e| format!("{e:?}"))?;
            check(sys::cuModuleGetFunction(&mut fill, module, name.as_ptr())).map_err(|e| format!("{e:?}"))?;
            check(sys::cuStreamCreate(&mut alloc_stream, flags)).map_err(|e| format!("{e:?}"))?;
            check(sys::cuStreamCreate(&mut work_stream, flags)).map_err(|e| format!("{e:?}"))?;
            check(sys::cuEventCreate(&mut kernel_done, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32))
                .map_err(|e| format!("{e:?}"))?;
        }
        Ok(Self { alloc_stream, work_stream, kernel_done, fill, _module: module })
    }

    unsafe fn fill_scratch(&self, n: u32, value: f32) -> Result<CUdeviceptr, CUresult> {
        let mut d: CUdeviceptr = 0;
        unsafe {
            check(sys::cuMemAllocAsync(&mut d, n as usize * 4, self.alloc_stream))?;
            // the work stream must see the allocation first
            check(sys::cuEventRecord(self.kernel_done, self.alloc_stream))?;
            check(sys::cuStreamWaitEvent(self.work_stream, self.kernel_done, 0))?;
            let (mut x, mut v, mut len) = (d, value, n);
            let mut params = [(&mut x as *mut CUdeviceptr).cast::<c_void>(), (&mut v as *mut f32).cast(), (&mut len as *mut u32).cast()];
            check(sys::cuLaunchKernel(self.fill, n.div_ceil(256), 1, 1, 256, 1, 1, 0, self.work_stream, params.as_mut_ptr(), ptr::null_mut()))?;
        }
        Ok(d)
    }

    pub unsafe fn scratch_leaky_order(&self, n: u32) -> Result<(), CUresult> {
        unsafe {
            let d = self.fill_scratch(n, 1.0)?;
            check(sys::cuMemFreeAsync(d, self.alloc_stream)) // EXPECT: missing_sync
        }
    }

    pub unsafe fn scratch_ordered(&self, n: u32) -> Result<(), CUresult> {
        unsafe {
            let d = self.fill_scratch(n, 1.0)?;
            check(sys::cuEventRecord(self.kernel_done, self.work_stream))?;
            check(sys::cuStreamWaitEvent(self.alloc_stream, self.kernel_done, 0))?;
            check(sys::cuMemFreeAsync(d, self.alloc_stream))
        }
    }
}
