//! case: a bias layer that owns its device bias vector is dropped right after `forward` enqueued the kernel that reads it
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void add_bias(const float* x, const float* bias, float* y, int rows, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) {
        y[i] = x[i] + bias[i % cols];
    }
}
"#;

/// Device memory owned by the host code, released with `cuMemFree` on drop.
struct DeviceBuffer {
    ptr: sys::CUdeviceptr,
    len: usize,
}

impl DeviceBuffer {
    fn zeroed(len: usize) -> Result<Self, DriverError> {
        let bytes = len * std::mem::size_of::<f32>();
        let ptr = unsafe { result::malloc_sync(bytes)? };
        let buf = Self { ptr, len };
        unsafe { result::memset_d8_sync(buf.ptr, 0, bytes)? };
        Ok(buf)
    }

    fn from_host(data: &[f32]) -> Result<Self, DriverError> {
        let ptr = unsafe { result::malloc_sync(std::mem::size_of_val(data))? };
        let buf = Self { ptr, len: data.len() };
        unsafe { result::memcpy_htod_sync(buf.ptr, data)? };
        Ok(buf)
    }

    fn to_host(&self) -> Result<Vec<f32>, DriverError> {
        let mut out = vec![0.0f32; self.len];
        unsafe { result::memcpy_dtoh_sync(&mut out, self.ptr)? };
        Ok(out)
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.ptr);
        }
    }
}

/// A layer that owns its parameters as raw device memory.
pub struct BiasLayer {
    bias: sys::CUdeviceptr,
    cols: usize,
    func: CudaFunction,
    stream: sys::CUstream,
}

impl BiasLayer {
    pub fn new(ctx: &Arc<CudaContext>, bias: &[f32]) -> Result<Self, Box<dyn Error>> {
        let ptx = compile_ptx(SRC)?;
        let func = ctx.load_module(ptx)?.load_function("add_bias")?;
        let ptr = unsafe { result::malloc_sync(std::mem::size_of_val(bias))? };
        let layer = Self {
            bias: ptr,
            cols: bias.len(),
            func,
            stream: result::stream::null(),
        };
        unsafe { result::memcpy_htod_sync(layer.bias, bias)? };
        Ok(layer)
    }

    pub fn forward(&mut self, x: sys::CUdeviceptr, y: sys::CUdeviceptr, rows: usize) -> Result<(), DriverError> {
        let mut x = x;
        let mut y = y;
        let mut bias = self.bias;
        let mut rows_i = rows as i32;
        let mut cols_i = self.cols as i32;
        let mut params: [*mut c_void; 5] = [
            &mut x as *mut _ as *mut c_void,
            &mut bias as *mut _ as *mut c_void,
            &mut y as *mut _ as *mut c_void,
            &mut rows_i as *mut _ as *mut c_void,
            &mut cols_i as *mut _ as *mut c_void,
        ];
        let total = (rows * self.cols) as u32;
        unsafe {
            result::launch_kernel(
                self.func.cu_function(),
                (total.div_ceil(256), 1, 1),
                (256, 1, 1),
                0,
                self.stream,
                &mut params,
            )
        }
    }
}

impl Drop for BiasLayer {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.bias);
        }
    }
}

/// Applies the bias once (a one-shot layer, built and thrown away per request).
pub fn apply_bias_once(input: &[f32], bias: &[f32]) -> Result<Vec<f32>, Box<dyn Error>> {
    assert!(!bias.is_empty() && input.len() % bias.len() == 0);
    let ctx = CudaContext::new(0)?;
    let rows = input.len() / bias.len();

    let x = DeviceBuffer::from_host(input)?;
    let y = DeviceBuffer::zeroed(input.len())?;

    let mut layer = BiasLayer::new(&ctx, bias)?;
    layer.forward(x.ptr, y.ptr, rows)?;
    drop(layer); // EXPECT: relies_on_implicit_sync

    unsafe { result::stream::synchronize(result::stream::null())? };
    Ok(y.to_host()?)
}
