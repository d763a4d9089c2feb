//! Batched scoring with a softmax head. Feature rows are standardized on a preprocessing
//! stream, the classifier (`CudaBlas` gemm) and the softmax run on the inference stream.
//! cudarc's event tracking is off; the inference stream waits for an event the
//! preprocessing stream records after its kernel.

use std::error::Error;

use cudarc::cublas::{sys as blas, CudaBlas, Gemm, GemmConfig};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const KERNELS_SRC: &str = r#"
extern "C" __global__ void standardize(const float* raw, float* x, const float* mean,
                                       const float* inv_std, int features, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int f = i % features;
        x[i] = (raw[i] - mean[f]) * inv_std[f];
    }
}

extern "C" __global__ void softmax_columns(float* logits, int classes, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float* col = logits + (size_t)c * classes;
    float m = col[0];
    for (int k = 1; k < classes; ++k) m = fmaxf(m, col[k]);
    float s = 0.0f;
    for (int k = 0; k < classes; ++k) { col[k] = __expf(col[k] - m); s += col[k]; }
    for (int k = 0; k < classes; ++k) col[k] /= s;
}
"#;

/// `weights` is `classes x features`, `rows` holds whole batches of `batch` feature
/// vectors; `mean_host` and `inv_std_host` are the per-feature statistics.
pub fn score_batches(
    weights: &[f32],
    mean_host: &[f32],
    inv_std_host: &[f32],
    rows: &[f32],
    classes: usize,
    features: usize,
    batch: usize,
) -> Result<Vec<f32>> {
    let per_batch = features * batch;
    assert_eq!(weights.len(), classes * features);
    assert_eq!(mean_host.len(), features);
    assert_eq!(inv_std_host.len(), features);
    assert!(per_batch > 0 && rows.len() % per_batch == 0);

    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let prep = ctx.new_stream()?;
    let infer = ctx.new_stream()?;
    let blas = CudaBlas::new(infer.clone())?;

    let module = ctx.load_module(compile_ptx(KERNELS_SRC)?)?;
    let standardize = module.load_function("standardize")?;
    let softmax = module.load_function("softmax_columns")?;

    let mut stage_w = unsafe { ctx.alloc_pinned::<f32>(weights.len())? };
    stage_w.as_mut_slice()?.copy_from_slice(weights);
    let mut stage_mean = unsafe { ctx.alloc_pinned::<f32>(features)? };
    stage_mean.as_mut_slice()?.copy_from_slice(mean_host);
    let mut stage_inv = unsafe { ctx.alloc_pinned::<f32>(features)? };
    stage_inv.as_mut_slice()?.copy_from_slice(inv_std_host);
    let mut stage_rows = unsafe { ctx.alloc_pinned::<f32>(per_batch)? };

    let mut w = unsafe { infer.alloc::<f32>(weights.len())? };
    let mut mean = unsafe { prep.alloc::<f32>(features)? };
    let mut inv_std = unsafe { prep.alloc::<f32>(features)? };
    let mut raw = unsafe { prep.alloc::<f32>(per_batch)? };
    let mut x = unsafe { prep.alloc::<f32>(per_batch)? };
    let mut probs = unsafe { infer.alloc::<f32>(classes * batch)? };
    let mut host_probs = unsafe { ctx.alloc_pinned_with_flags::<f32>(classes * batch, 0)? };
    ctx.synchronize()?;

    infer.memcpy_htod(&stage_w, &mut w)?;
    prep.memcpy_htod(&stage_mean, &mut mean)?;
    prep.memcpy_htod(&stage_inv, &mut inv_std)?;

    let f = features as i32;
    let n = per_batch as i32;
    let c = classes as i32;
    let b = batch as i32;
    let gemm_cfg = GemmConfig {
        transa: blas::cublasOperation_t::CUBLAS_OP_N,
        transb: blas::cublasOperation_t::CUBLAS_OP_N,
        m: c,
        n: b,
        k: f,
        alpha: 1.0f32,
        lda: c,
        ldb: f,
        beta: 0.0f32,
        ldc: c,
    };

    let mut out = Vec::with_capacity(rows.len() / features * classes);
    for chunk in rows.chunks_exact(per_batch) {
        prep.synchronize()?;
        stage_rows.as_mut_slice()?.copy_from_slice(chunk);
        prep.memcpy_htod(&stage_rows, &mut raw)?;

        let mut launch = prep.launch_builder(&standardize);
        launch.arg(&raw).arg(&mut x).arg(&mean).arg(&inv_std).arg(&f).arg(&n);
        unsafe { launch.launch(LaunchConfig::for_num_elems(per_batch as u32)) }?;
        let standardized = prep.record_event(None)?;

        infer.wait(&standardized)?;
        unsafe { blas.gemm(gemm_cfg, &w, &x, &mut probs) }?;

        let mut launch = infer.launch_builder(&softmax);
        launch.arg(&mut probs).arg(&c).arg(&b);
        unsafe { launch.launch(LaunchConfig::for_num_elems(batch as u32)) }?;

        infer.memcpy_dtoh(&probs, &mut host_probs)?;
        infer.synchronize()?;
        out.extend_from_slice(host_probs.as_slice()?);
    }
    prep.synchronize()?;

    Ok(out)
}
