//! case: a pinned staging buffer is released with `cuMemFreeHost` right after the `cuMemcpyHtoDAsync` that reads it and the kernel behind it were enqueued
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::c_void;
use std::ptr;

use cudarc::driver::result::stream::StreamKind;
use cudarc::driver::{result, sys, CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void prefix_scale(const float* in, float* out, float gain, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = gain * in[i];
}
"#;

struct Staging {
    ptr: *mut c_void,
    bytes: usize,
}

impl Staging {
    fn filled(data: &[f32]) -> Result<Self, DriverError> {
        let bytes = std::mem::size_of_val(data);
        let mut p = ptr::null_mut();
        unsafe { sys::cuMemAllocHost_v2(&mut p, bytes).result()? };
        unsafe { ptr::copy_nonoverlapping(data.as_ptr(), p as *mut f32, data.len()) };
        Ok(Self { ptr: p, bytes })
    }

    fn release(self) -> Result<(), DriverError> {
        let p = self.ptr;
        std::mem::forget(self);
        unsafe { sys::cuMemFreeHost(p).result() }
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFreeHost(self.ptr);
        }
    }
}

struct Dev(sys::CUdeviceptr);

impl Drop for Dev {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.0);
        }
    }
}

struct Stream(sys::CUstream);

impl Drop for Stream {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::destroy(self.0);
        }
    }
}

pub fn scale_on_device(data: &[f32], gain: f32) -> Result<Vec<f32>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let func = ctx.load_module(compile_ptx(SRC)?)?.load_function("prefix_scale")?;
    let stream = Stream(result::stream::create(StreamKind::NonBlocking)?);

    let staging = Staging::filled(data)?;
    let d_in = Dev(unsafe { result::malloc_sync(staging.bytes)? });
    let d_out = Dev(unsafe { result::malloc_sync(staging.bytes)? });

    unsafe { sys::cuMemcpyHtoDAsync_v2(d_in.0, staging.ptr, staging.bytes, stream.0).result()? };
    let (mut i, mut o, mut g, mut n) = (d_in.0, d_out.0, gain, data.len() as i32);
    let mut args: [*mut c_void; 4] = [
        &mut i as *mut _ as *mut c_void,
        &mut o as *mut _ as *mut c_void,
        &mut g as *mut _ as *mut c_void,
        &mut n as *mut _ as *mut c_void,
    ];
    let launched = unsafe {
        result::launch_kernel(func.cu_function(), ((data.len() as u32).div_ceil(256), 1, 1), (256, 1, 1), 0, stream.0, &mut args)
    };
    staging.release()?; // EXPECT: relies_on_implicit_sync
    launched?;

    let mut out = vec![0.0f32; data.len()];
    unsafe {
        result::stream::synchronize(stream.0)?;
        result::memcpy_dtoh_sync(&mut out, d_out.0)?;
    }
    Ok(out)
}
