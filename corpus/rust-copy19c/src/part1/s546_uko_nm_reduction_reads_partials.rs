//! case: near miss: a first kernel writes per-block partial sums, a second kernel reduces them into `total`, which is copied back; the partials are dropped after being read by the second kernel
//! expect: none

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void partial_sums(const float* x, float* partial, int n) {
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}
extern "C" __global__ void final_sum(const float* partial, float* total, int blocks) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        float acc = 0.0f;
        for (int b = 0; b < blocks; ++b) acc += partial[b];
        total[0] = acc;
    }
}
"#;

const N: usize = 1 << 13;
const BLOCKS: usize = N / 256;

pub fn device_sum(x_host: &[f32]) -> Result<f32, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let partial_sums = module.load_function("partial_sums")?;
    let final_sum = module.load_function("final_sum")?;
    let x = stream.clone_htod(&x_host[..N])?;
    let mut partial = stream.alloc_zeros::<f32>(BLOCKS)?;
    let mut total = stream.alloc_zeros::<f32>(1)?;
    let n = N as i32;
    let blocks = BLOCKS as i32;
    let cfg = LaunchConfig { grid_dim: (BLOCKS as u32, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    let mut first = stream.launch_builder(&partial_sums);
    first.arg(&x).arg(&mut partial).arg(&n);
    unsafe { first.launch(cfg)? };
    let mut second = stream.launch_builder(&final_sum);
    second.arg(&partial).arg(&mut total).arg(&blocks);
    unsafe { second.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 })? };
    drop(partial);
    let t = stream.clone_dtoh(&total)?;
    Ok(t[0])
}
