//! case: raw driver API readback into cuMemAllocHost memory, waited for with an event: recorded after the copy (correct) and recorded before it (the wait does not cover the copy)
//! expect: missing_sync=1
use std::ptr;

use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUresult, CUstream};

fn check(r: CUresult) -> Result<(), CUresult> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(r) }
}

struct Raw {
    stream: CUstream,
    done: CUevent,
    dev: CUdeviceptr,
    host: *mut f32,
    len: usize,
}

unsafe fn setup(len: usize) -> Result<Raw, CUresult> {
    let bytes = len * std::mem::size_of::<f32>();
    let mut stream: CUstream = ptr::null_mut();
    let mut done: CUevent = ptr::null_mut();
    let mut dev: CUdeviceptr = 0;
    let mut host: *mut std::ffi::c_void = ptr::null_mut();
    unsafe {
        check(sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32))?;
        check(sys::cuEventCreate(&mut done, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32))?;
        check(sys::cuMemAlloc_v2(&mut dev, bytes))?;
        check(sys::cuMemsetD32Async(dev, 0x3f80_0000, len, stream))?; // 1.0f
        check(sys::cuMemAllocHost_v2(&mut host, bytes))?;
    }
    Ok(Raw { stream, done, dev, host: host.cast(), len })
}

pub unsafe fn sum_after_event(len: usize) -> Result<f32, CUresult> {
    let r = unsafe { setup(len)? };
    unsafe {
        check(sys::cuMemcpyDtoHAsync_v2(r.host.cast(), r.dev, r.len * 4, r.stream))?;
        check(sys::cuEventRecord(r.done, r.stream))?;
        check(sys::cuEventSynchronize(r.done))?;
        let host = std::slice::from_raw_parts(r.host, r.len);
        Ok(host.iter().sum())
    }
}

pub unsafe fn sum_event_too_early(len: usize) -> Result<f32, CUresult> {
    let r = unsafe { setup(len)? };
    unsafe {
        check(sys::cuEventRecord(r.done, r.stream))?;
        check(sys::cuMemcpyDtoHAsync_v2(r.host.cast(), r.dev, r.len * 4, r.stream))?;
        check(sys::cuEventSynchronize(r.done))?;
        let host = std::slice::from_raw_parts(r.host, r.len);
        Ok(host.iter().sum()) // EXPECT: missing_sync
    }
}
