//! case: histogram bins in managed memory are read on the host after the pinned staging buffer is freed and the stream is synchronized
//! expect: none

use std::error::Error;
use std::ffi::c_void;
use std::ptr;

use cudarc::driver::{result, sys, CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void histogram(const float* samples, unsigned int* bins, int n,
                                     float lo, float inv_width, int nbins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int b = (int)((samples[i] - lo) * inv_width);
    b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);
    atomicAdd(&bins[b], 1u);
}
"#;

struct Managed {
    ptr: sys::CUdeviceptr,
    len: usize,
}

impl Managed {
    fn zeroed_u32(len: usize) -> Result<Self, DriverError> {
        let mut ptr: sys::CUdeviceptr = 0;
        unsafe {
            sys::cuMemAllocManaged(
                &mut ptr,
                len * std::mem::size_of::<u32>(),
                sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32,
            )
            .result()?;
            ptr::write_bytes(ptr as *mut u32, 0, len);
        }
        Ok(Self { ptr, len })
    }
}

impl Drop for Managed {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.ptr);
        }
    }
}

struct Pinned {
    ptr: *mut c_void,
    bytes: usize,
}

impl Pinned {
    fn copy_of(data: &[f32]) -> Result<Self, DriverError> {
        let bytes = std::mem::size_of_val(data);
        let mut p: *mut c_void = ptr::null_mut();
        unsafe {
            sys::cuMemAllocHost_v2(&mut p, bytes).result()?;
            ptr::copy_nonoverlapping(data.as_ptr(), p as *mut f32, data.len());
        }
        Ok(Self { ptr: p, bytes })
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFreeHost(self.ptr);
        }
    }
}

struct Device(sys::CUdeviceptr);

impl Drop for Device {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.0);
        }
    }
}

/// Uploads `staging` and waits for the copy, so the caller may refill or free it.
fn upload_and_wait(dst: &Device, staging: &Pinned, stream: sys::CUstream) -> Result<(), DriverError> {
    unsafe {
        sys::cuMemcpyHtoDAsync_v2(dst.0, staging.ptr, staging.bytes, stream).result()?;
        sys::cuStreamSynchronize(stream).result()
    }
}

pub fn histogram_synced(samples: &[f32], lo: f32, hi: f32, nbins: usize) -> Result<Vec<u32>, Box<dyn Error>> {
    assert!(hi > lo && nbins > 0 && !samples.is_empty());
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let func = ctx.load_module(compile_ptx(SRC)?)?.load_function("histogram")?;

    let bins = Managed::zeroed_u32(nbins)?;
    let staging = Pinned::copy_of(samples)?;
    let d_samples = Device(unsafe { result::malloc_sync(staging.bytes)? });
    upload_and_wait(&d_samples, &staging, stream.cu_stream())?;

    let (mut s, mut b) = (d_samples.0, bins.ptr);
    let mut n = samples.len() as i32;
    let mut lo_v = lo;
    let mut inv_w = nbins as f32 / (hi - lo);
    let mut nb = nbins as i32;
    let mut args: [*mut c_void; 6] = [
        &mut s as *mut _ as *mut c_void,
        &mut b as *mut _ as *mut c_void,
        &mut n as *mut _ as *mut c_void,
        &mut lo_v as *mut _ as *mut c_void,
        &mut inv_w as *mut _ as *mut c_void,
        &mut nb as *mut _ as *mut c_void,
    ];
    unsafe {
        result::launch_kernel(
            func.cu_function(),
            ((samples.len() as u32).div_ceil(256), 1, 1),
            (256, 1, 1),
            0,
            stream.cu_stream(),
            &mut args,
        )?;
    }
    drop(staging);

    stream.synchronize()?;
    let counts: Vec<u32> = unsafe { std::slice::from_raw_parts(bins.ptr as *const u32, bins.len) }.to_vec();
    Ok(counts)
}
