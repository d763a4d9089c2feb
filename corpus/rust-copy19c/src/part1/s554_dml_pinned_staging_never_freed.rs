//! case: a page-locked staging buffer from cuMemAllocHost is used for an upload and the function returns without cuMemFreeHost
//! expect: device_memory_leak=1

use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use std::ffi::c_void;
use std::mem::size_of;

const N: usize = 1 << 18;

pub fn upload_pinned(values: &[f32]) -> Result<sys::CUdeviceptr, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let mut staging: *mut c_void = std::ptr::null_mut();
    let mut d_dst: sys::CUdeviceptr = 0;
    unsafe {
        sys::cuMemAllocHost_v2(&mut staging, N * size_of::<f32>()).result().expect("pinned alloc"); // EXPECT: device_memory_leak
        let pinned = std::slice::from_raw_parts_mut(staging as *mut f32, N);
        let len = values.len().min(N);
        pinned[..len].copy_from_slice(&values[..len]);
        sys::cuMemAlloc_v2(&mut d_dst, N * size_of::<f32>()).result().expect("device alloc");
        sys::cuMemcpyHtoD_v2(d_dst, staging as *const c_void, N * size_of::<f32>()).result().expect("upload");
    }
    Ok(d_dst)
}
