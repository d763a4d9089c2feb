//! case: a model struct cuMemAlloc's its weights in new(); serve() builds it and calls forward(), whose kernel only loads the weights, without load_weights() ever being called.
//! expect: uninitialized_device_read=1
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;
use std::mem::size_of;
use std::sync::Arc;

const SCALE_SRC: &str = r#"
extern "C" __global__ void channel_scale(const float* x, const float* w, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * w[i];
}
"#;

const DIM: usize = 4096;
const DIM_BYTES: usize = DIM * size_of::<f32>();

pub struct ScaleModel {
    ctx: Arc<CudaContext>,
    kernel: CudaFunction,
    d_weights: CUdeviceptr,
}

impl ScaleModel {
    pub fn new() -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(0)?;
        let kernel = ctx.load_module(compile_ptx(SCALE_SRC)?)?.load_function("channel_scale")?;
        let mut d_weights: CUdeviceptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut d_weights, DIM_BYTES).result()? };
        Ok(Self { ctx, kernel, d_weights })
    }

    pub fn load_weights(&mut self, w: &[f32; DIM]) -> Result<(), DriverError> {
        unsafe { sys::cuMemcpyHtoD_v2(self.d_weights, w.as_ptr() as *const c_void, DIM_BYTES).result() }
    }

    pub fn forward(&self, x: &[f32; DIM]) -> Result<Vec<f32>, DriverError> {
        let mut y = vec![0.0f32; DIM];
        let mut d_x: CUdeviceptr = 0;
        let mut d_y: CUdeviceptr = 0;
        let mut d_w = self.d_weights;
        let mut n = DIM as i32;
        unsafe {
            sys::cuMemAlloc_v2(&mut d_x, DIM_BYTES).result()?;
            if let Err(e) = sys::cuMemAlloc_v2(&mut d_y, DIM_BYTES).result() {
                sys::cuMemFree_v2(d_x);
                return Err(e);
            }
            sys::cuMemcpyHtoD_v2(d_x, x.as_ptr() as *const c_void, DIM_BYTES);
            let mut params: [*mut c_void; 4] = [
                &mut d_x as *mut CUdeviceptr as *mut c_void,
                &mut d_w as *mut CUdeviceptr as *mut c_void,
                &mut d_y as *mut CUdeviceptr as *mut c_void,
                &mut n as *mut i32 as *mut c_void,
            ];
            sys::cuLaunchKernel(self.kernel.cu_function(), (DIM / 256) as u32, 1, 1, 256, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut()); // EXPECT: uninitialized_device_read
            sys::cuMemcpyDtoH_v2(y.as_mut_ptr() as *mut c_void, d_y, DIM_BYTES);
            sys::cuMemFree_v2(d_x);
            sys::cuMemFree_v2(d_y);
        }
        Ok(y)
    }
}

impl Drop for ScaleModel {
    fn drop(&mut self) {
        unsafe {
            sys::cuMemFree_v2(self.d_weights);
        }
    }
}

pub fn serve(x: &[f32; DIM]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let model = ScaleModel::new()?;
    Ok(model.forward(x)?)
}
