//! case: raw cuMemAllocManaged buffer attached to its own stream (cuStreamAttachMemAsync, CU_MEM_ATTACH_SINGLE) and that stream synchronized; the host fills it while an unrelated kernel runs on another stream
//! expect: none
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void decay(float* v, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] *= 0.99f;
}
"#;

struct StreamOwnedManaged {
    ptr: CUdeviceptr,
    len: usize,
    owner: CUstream,
}

impl StreamOwnedManaged {
    fn new(len: usize, owner: CUstream) -> Result<Self, DriverError> {
        let mut ptr = 0;
        unsafe {
            sys::cuMemAllocManaged(&mut ptr, len * 4, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32).result()?;
            sys::cuStreamAttachMemAsync(owner, ptr, 0, sys::CUmemAttach_flags::CU_MEM_ATTACH_SINGLE as u32).result()?;
            sys::cuStreamSynchronize(owner).result()?;
        }
        Ok(StreamOwnedManaged { ptr, len, owner })
    }

    fn host_mut(&mut self) -> &mut [f32] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut f32, self.len) }
    }
}

impl Drop for StreamOwnedManaged {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.owner);
            let _ = sys::cuMemFree_v2(self.ptr);
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let owner = ctx.new_stream()?;
    let other = ctx.new_stream()?;
    let f = ctx.load_module(compile_ptx(SRC)?)?.load_function("decay")?;
    let mut staging = StreamOwnedManaged::new(1 << 16, owner.cu_stream())?;

    let mut state: CUdeviceptr = 0;
    let n: u32 = 1 << 20;
    unsafe { sys::cuMemAlloc_v2(&mut state, n as usize * 4) }.result()?;
    let (mut p, mut nn) = (state, n);
    let mut params = [&mut p as *mut _ as *mut c_void, &mut nn as *mut _ as *mut c_void];
    unsafe { sys::cuLaunchKernel(f.cu_function(), n / 256, 1, 1, 256, 1, 1, 0, other.cu_stream(), params.as_mut_ptr(), null_mut()) }.result()?;

    // `decay` runs on `other`; the managed buffer belongs to `owner`, which is idle
    for (i, v) in staging.host_mut().iter_mut().enumerate() {
        *v = i as f32;
    }
    other.synchronize()?;
    unsafe { sys::cuMemFree_v2(state) }.result()?;
    Ok(())
}
