//! Layer normalisation for a fixed batch of token embeddings, captured into a CUDA
//! graph through cudarc's `driver::result` layer. The per-row statistics live in a
//! scratch buffer that a helper allocates while the capture is open; the capture is
//! begun in relaxed mode precisely so that this allocation is allowed (the approach
//! PaddlePaddle takes around allocations made during capture).

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const LN_SRC: &str = r#"
extern "C" __global__ void row_stats(const float* __restrict__ x, int rows, int dim,
                                     float* __restrict__ stats) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f, q = 0.0f;
    for (int k = 0; k < dim; ++k) { float v = x[r * dim + k]; s += v; q += v * v; }
    float mean = s / dim;
    stats[2 * r] = mean;
    stats[2 * r + 1] = rsqrtf(q / dim - mean * mean + 1e-5f);
}

extern "C" __global__ void normalize(const float* __restrict__ x,
                                     const float* __restrict__ stats,
                                     const float* __restrict__ gamma,
                                     const float* __restrict__ beta,
                                     float* __restrict__ y, int rows, int dim) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * dim) return;
    int r = i / dim, k = i % dim;
    y[i] = (x[i] - stats[2 * r]) * stats[2 * r + 1] * gamma[k] + beta[k];
}
"#;

struct Scratch {
    ptr: sys::CUdeviceptr,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = unsafe { result::free_sync(self.ptr) };
    }
}

/// Device scratch for the per-row (mean, rstd) pairs.
fn stats_scratch(rows: usize) -> Result<Scratch, DriverError> {
    let ptr = unsafe { result::malloc_sync(2 * rows * std::mem::size_of::<f32>()) }?;
    Ok(Scratch { ptr })
}

struct GraphExec {
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
}

impl Drop for GraphExec {
    fn drop(&mut self) {
        unsafe {
            let _ = result::graph::exec_destroy(self.exec);
            let _ = result::graph::destroy(self.graph);
        }
    }
}

/// Normalises each batch of `rows x dim` embeddings with the affine `gamma`, `beta`.
pub fn layer_norm_batches(
    batches: &[Vec<f32>],
    rows: usize,
    dim: usize,
    gamma: &[f32],
    beta: &[f32],
) -> Result<Vec<Vec<f32>>, Box<dyn Error>> {
    assert_eq!(gamma.len(), dim);
    assert_eq!(beta.len(), dim);
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream: Arc<CudaStream> = ctx.new_stream()?;
    let cu = stream.cu_stream();
    let module = ctx.load_module(compile_ptx(LN_SRC)?)?;
    let stats_fn = module.load_function("row_stats")?;
    let norm_fn = module.load_function("normalize")?;

    let n = rows * dim;
    let mut h_affine = unsafe { ctx.alloc_pinned_with_flags::<f32>(2 * dim, 0) }?;
    {
        let a = h_affine.as_mut_slice()?;
        a[..dim].copy_from_slice(gamma);
        a[dim..].copy_from_slice(beta);
    }
    let mut d_affine = stream.alloc_zeros::<f32>(2 * dim)?;
    stream.memcpy_htod(&h_affine, &mut d_affine)?;
    let mut h_x = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0) }?;
    let mut h_y = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0) }?;
    let mut d_x = stream.alloc_zeros::<f32>(n)?;
    let mut d_y = stream.alloc_zeros::<f32>(n)?;
    stream.synchronize()?;

    let (r_i, d_i) = (rows as i32, dim as i32);
    let gamma_v = d_affine.slice(..dim);
    let beta_v = d_affine.slice(dim..);

    unsafe {
        result::stream::begin_capture(cu, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)
    }?;
    stream.memcpy_htod(&h_x, &mut d_x)?;
    let stats = stats_scratch(rows)?;
    unsafe { result::memset_d8_async(stats.ptr, 0, 2 * rows * std::mem::size_of::<f32>(), cu) }?;
    let mut b = stream.launch_builder(&stats_fn);
    b.arg(&d_x).arg(&r_i).arg(&d_i).arg(&stats.ptr);
    unsafe { b.launch(LaunchConfig::for_num_elems(rows as u32)) }?;
    let mut b = stream.launch_builder(&norm_fn);
    b.arg(&d_x)
        .arg(&stats.ptr)
        .arg(&gamma_v)
        .arg(&beta_v)
        .arg(&mut d_y)
        .arg(&r_i)
        .arg(&d_i);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    stream.memcpy_dtoh(&d_y, &mut h_y)?;
    let graph = unsafe { result::stream::end_capture(cu) }?;
    let exec = unsafe { result::graph::instantiate(graph, sys::CUgraphInstantiate_flags(0)) }?;
    let exec = GraphExec { graph, exec };

    let mut out = Vec::with_capacity(batches.len());
    for batch in batches {
        assert_eq!(batch.len(), n);
        h_x.as_mut_slice()?.copy_from_slice(batch);
        unsafe { result::graph::launch(exec.exec, cu) }?;
        stream.synchronize()?;
        out.push(h_y.as_slice()?.to_vec());
    }
    drop(exec);
    drop(stats);
    Ok(out)
}
