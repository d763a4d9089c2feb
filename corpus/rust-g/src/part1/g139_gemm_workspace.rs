//! case: split-K GEMM for an MLP layer that takes its partial-sum workspace and its split offsets from the stream-ordered allocator (`cuMemAllocAsync`); the offsets go back with `cuMemFreeAsync` on the same stream, but the workspace is released with plain `cuMemFree` right after the reduction kernel is enqueued, and `cuMemFree` does not wait for work using memory from `cuMemAllocAsync`
//! expect: missing_sync=1

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const SPLITK_SRC: &str = r#"
extern "C" __global__ void gemm_partial(const float* a, const float* b, float* ws, const unsigned* k_off,
                                        unsigned m, unsigned n, unsigned k, unsigned splits) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned s = blockIdx.y;
    if (i >= m * n || s >= splits) return;
    unsigned r = i / n, c = i % n;
    float acc = 0.0f;
    for (unsigned kk = k_off[s]; kk < k_off[s + 1]; ++kk) acc += a[(size_t)r * k + kk] * b[(size_t)kk * n + c];
    ws[(size_t)s * m * n + i] = acc;
}

extern "C" __global__ void reduce_splits(const float* ws, float* c, unsigned mn, unsigned splits) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= mn) return;
    float acc = 0.0f;
    for (unsigned s = 0; s < splits; ++s) acc += ws[(size_t)s * mn + i];
    c[i] = acc;
}
"#;

pub fn splitk_gemm(stream: &Arc<CudaStream>, a: &CudaSlice<f32>, b: &CudaSlice<f32>, c: &mut CudaSlice<f32>, m: u32, n: u32, k: u32, splits: u32) -> Result<()> {
    let ctx = stream.context();
    let module = ctx.load_module(compile_ptx(SPLITK_SRC)?)?;
    let (partial, reduce) = (module.load_function("gemm_partial")?, module.load_function("reduce_splits")?);
    let cu_stream = stream.cu_stream();

    let offsets: [u32; 9] = std::array::from_fn(|s| (k as usize * s.min(splits as usize) / splits as usize) as u32);
    let ws_bytes = (splits * m * n) as usize * 4;
    let (mut ws, mut k_off) = (0u64, 0u64);
    unsafe {
        sys::cuMemAllocAsync(&mut ws, ws_bytes, cu_stream).result()?;
        sys::cuMemAllocAsync(&mut k_off, offsets.len() * 4, cu_stream).result()?;
        sys::cuMemcpyHtoDAsync_v2(k_off, offsets.as_ptr() as *const _, offsets.len() * 4, cu_stream).result()?;
    }

    let mn = m * n;
    let cfg = LaunchConfig { grid_dim: (mn.div_ceil(256), splits, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    let mut p = stream.launch_builder(&partial);
    p.arg(a).arg(b).arg(&ws).arg(&k_off).arg(&m).arg(&n).arg(&k).arg(&splits);
    unsafe { p.launch(cfg)? };
    let mut r = stream.launch_builder(&reduce);
    r.arg(&ws).arg(c).arg(&mn).arg(&splits);
    unsafe { r.launch(LaunchConfig::for_num_elems(mn))? };

    unsafe {
        sys::cuMemFreeAsync(k_off, cu_stream).result()?;
        sys::cuMemFree_v2(ws).result()?; // EXPECT: missing_sync
    }
    Ok(())
}

pub fn mlp_up_proj(x: &CudaSlice<f32>, w: &CudaSlice<f32>, tokens: u32, hidden: u32, inter: u32) -> Result<CudaSlice<f32>> {
    let ctx: Arc<CudaContext> = x.context().clone();
    let stream = ctx.new_stream()?;
    let mut y = stream.alloc_zeros::<f32>((tokens * inter) as usize)?;
    splitk_gemm(&stream, x, w, &mut y, tokens, inter, hidden, 8)?;
    stream.synchronize()?;
    Ok(y)
}
