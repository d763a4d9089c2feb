//! case: cudarc: per-block maxima written by a first kernel are read by a second kernel that writes the global maximum, which is copied back; both outputs are read before they are dropped
//! expect: none
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const N: usize = 4096;
const BLOCKS: usize = 16;

const MAX_SRC: &str = r#"
extern "C" __global__ void block_max(const float* x, float* partial, int per_block) {
    if (threadIdx.x != 0) return;
    float m = x[blockIdx.x * per_block];
    for (int i = 1; i < per_block; ++i) m = fmaxf(m, x[blockIdx.x * per_block + i]);
    partial[blockIdx.x] = m;
}
extern "C" __global__ void reduce_max(const float* partial, float* result, int blocks) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    float m = partial[0];
    for (int i = 1; i < blocks; ++i) m = fmaxf(m, partial[i]);
    result[0] = m;
}
"#;

pub fn max_value(x: &[f32; N]) -> Result<f32, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(MAX_SRC)?)?;
    let block_max = module.load_function("block_max")?;
    let reduce_max = module.load_function("reduce_max")?;

    let d_x = stream.clone_htod(x)?;
    let mut d_partial = stream.alloc_zeros::<f32>(BLOCKS)?;
    let mut d_result = stream.alloc_zeros::<f32>(1)?;
    let per_block = (N / BLOCKS) as i32;
    let blocks = BLOCKS as i32;

    let mut b1 = stream.launch_builder(&block_max);
    b1.arg(&d_x).arg(&mut d_partial).arg(&per_block);
    unsafe { b1.launch(LaunchConfig { grid_dim: (BLOCKS as u32, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 }) }?;
    let mut b2 = stream.launch_builder(&reduce_max);
    b2.arg(&d_partial).arg(&mut d_result).arg(&blocks);
    unsafe { b2.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 }) }?;

    let mut result = [0.0f32; 1];
    stream.memcpy_dtoh(&d_result, &mut result)?;
    stream.synchronize()?;
    drop(d_partial);
    drop(d_result);
    Ok(result[0])
}
