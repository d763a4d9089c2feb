//! case: a GEMV epilogue launched with cuLaunchKernel passes a null bias pointer to a kernel that tests `if (bias != nullptr)` before loading it (an optional argument).
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;
use std::mem::size_of;

const EPILOGUE_SRC: &str = r#"
extern "C" __global__ void bias_relu(float* y, const float* bias, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = y[i];
    if (bias != nullptr) v += bias[i];
    y[i] = v > 0.0f ? v : 0.0f;
}
"#;

const ROWS: usize = 4096;

pub fn relu_no_bias(y: &[f32; ROWS]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let module = ctx.load_module(compile_ptx(EPILOGUE_SRC)?)?;
    let f = module.load_function("bias_relu")?;
    let mut out = vec![0.0f32; ROWS];
    let mut d_y: CUdeviceptr = 0;
    let mut d_bias: CUdeviceptr = 0;
    let mut n = ROWS as i32;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_y, ROWS * size_of::<f32>()).result()?;
        sys::cuMemcpyHtoD_v2(d_y, y.as_ptr() as *const c_void, ROWS * size_of::<f32>());
        let mut params: [*mut c_void; 3] = [
            &mut d_y as *mut CUdeviceptr as *mut c_void,
            &mut d_bias as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(f.cu_function(), (ROWS / 128) as u32, 1, 1, 128, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        let copied = sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_y, ROWS * size_of::<f32>());
        sys::cuMemFree_v2(d_y);
        launched.result()?;
        copied.result()?;
    }
    Ok(out)
}
