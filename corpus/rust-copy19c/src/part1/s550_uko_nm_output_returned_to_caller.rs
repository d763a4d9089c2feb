//! case: near miss: a cudarc helper launches a kernel into a fresh output slice and returns the slice to its caller instead of reading or dropping it
//! expect: none

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use std::sync::Arc;

pub const SRC: &str = r#"
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) {
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}
"#;

pub fn transpose(
    stream: &Arc<CudaStream>,
    kernel: &CudaFunction,
    input: &CudaSlice<f32>,
    rows: usize,
    cols: usize,
) -> Result<CudaSlice<f32>, DriverError> {
    let mut out = stream.alloc_zeros::<f32>(rows * cols)?;
    let (r, c) = (rows as i32, cols as i32);
    let cfg = LaunchConfig {
        grid_dim: ((cols as u32).div_ceil(16), (rows as u32).div_ceil(16), 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    let mut b = stream.launch_builder(kernel);
    b.arg(input).arg(&mut out).arg(&r).arg(&c);
    unsafe { b.launch(cfg)? };
    Ok(out)
}
