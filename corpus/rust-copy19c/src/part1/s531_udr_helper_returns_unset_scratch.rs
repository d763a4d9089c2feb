//! case: a helper the crate defines returns a scratch CudaSlice from the unsafe `alloc`; the caller hands it to a reduction kernel that only reads its input, before anything fills it
//! expect: uninitialized_device_read=1

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::sync::Arc;

const SRC: &str = r#"
extern "C" __global__ void block_sum(const float* in, float* partial, int n) {
    __shared__ float acc[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    acc[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) acc[threadIdx.x] += acc[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = acc[0];
}
"#;

const N: usize = 1 << 14;
const BLOCKS: usize = N / 256;

fn scratch(stream: &Arc<CudaStream>, len: usize) -> Result<CudaSlice<f32>, DriverError> {
    // "no need to zero it, the producer overwrites it"
    unsafe { stream.alloc::<f32>(len) }
}

pub fn sum_of_products() -> Result<f32, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let block_sum = ctx.load_module(compile_ptx(SRC)?)?.load_function("block_sum")?;
    let products = scratch(&stream, N)?;
    // the producer kernel that filled `products` is not launched any more
    let mut partial = stream.alloc_zeros::<f32>(BLOCKS)?;
    let n = N as i32;
    let cfg = LaunchConfig { grid_dim: (BLOCKS as u32, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    let mut launch = stream.launch_builder(&block_sum);
    launch.arg(&products).arg(&mut partial).arg(&n);
    unsafe { launch.launch(cfg)? }; // EXPECT: uninitialized_device_read
    let partial_host = stream.clone_dtoh(&partial)?;
    Ok(partial_host.iter().sum())
}
