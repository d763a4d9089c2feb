//! case: residuals copied back with `memcpy_dtoh_async` into a `Vec` are summed before the stream is synchronized
//! expect: relies_on_implicit_sync=1, pageable_async_copy=1

use std::error::Error;
use std::ffi::c_void;

use cudarc::driver::result::stream::StreamKind;
use cudarc::driver::{result, sys, CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void sq_residual(const float* pred, const float* target, float* res, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float d = pred[i] - target[i];
        res[i] = d * d;
    }
}
"#;

struct Stream(sys::CUstream);

impl Drop for Stream {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::destroy(self.0);
        }
    }
}

struct DevVec {
    ptr: sys::CUdeviceptr,
    len: usize,
}

impl DevVec {
    fn from_slice(data: &[f32]) -> Result<Self, DriverError> {
        let ptr = unsafe { result::malloc_sync(std::mem::size_of_val(data))? };
        let v = Self { ptr, len: data.len() };
        unsafe { result::memcpy_htod_sync(v.ptr, data)? };
        Ok(v)
    }

    fn uninit(len: usize) -> Result<Self, DriverError> {
        Ok(Self { ptr: unsafe { result::malloc_sync(len * 4)? }, len })
    }
}

impl Drop for DevVec {
    fn drop(&mut self) {
        unsafe {
            let _ = result::free_sync(self.ptr);
        }
    }
}

pub fn mean_squared_error(pred: &[f32], target: &[f32]) -> Result<f32, Box<dyn Error>> {
    assert_eq!(pred.len(), target.len());
    let n = pred.len();
    let ctx = CudaContext::new(0)?;
    let func = ctx.load_module(compile_ptx(SRC)?)?.load_function("sq_residual")?;
    let stream = Stream(result::stream::create(StreamKind::Default)?);

    let d_pred = DevVec::from_slice(pred)?;
    let d_target = DevVec::from_slice(target)?;
    let d_res = DevVec::uninit(n)?;

    let (mut p, mut t, mut r, mut n_i) = (d_pred.ptr, d_target.ptr, d_res.ptr, n as i32);
    let mut args: [*mut c_void; 4] = [
        &mut p as *mut _ as *mut c_void,
        &mut t as *mut _ as *mut c_void,
        &mut r as *mut _ as *mut c_void,
        &mut n_i as *mut _ as *mut c_void,
    ];
    unsafe {
        result::launch_kernel(func.cu_function(), ((n as u32).div_ceil(256), 1, 1), (256, 1, 1), 0, stream.0, &mut args)?;
    }

    let mut residuals = vec![0.0f32; d_res.len];
    let copied = unsafe { result::memcpy_dtoh_async(&mut residuals, d_res.ptr, stream.0) }; // EXPECT: pageable_async_copy
    if let Err(e) = copied {
        unsafe { result::stream::synchronize(stream.0)? };
        return Err(e.into());
    }
    let total: f32 = residuals.iter().sum(); // EXPECT: relies_on_implicit_sync

    unsafe { result::stream::synchronize(stream.0)? };
    Ok(total / n as f32)
}
