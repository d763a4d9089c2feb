//! Batched image classification: a loader stream uploads 8-bit images and normalizes them,
//! a compute stream runs the linear classifier through cudarc's `CudaBlas`. The pipeline
//! orders its two streams itself, so cudarc's per-buffer event tracking is turned off
//! before anything is allocated.

use std::error::Error;

use cudarc::cublas::{sys as blas, CudaBlas, Gemm, GemmConfig};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const NORMALIZE_SRC: &str = r#"
extern "C" __global__ void normalize_pixels(const unsigned char* raw, float* x,
                                            float mean, float inv_std, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = ((float)raw[i] * (1.0f / 255.0f) - mean) * inv_std;
    }
}
"#;

/// `weights` is `classes x pixels` column-major; `images` holds whole batches of `batch`
/// images of `pixels` bytes each. Returns the predicted class of every image.
pub fn classify_batches(
    weights: &[f32],
    images: &[u8],
    classes: usize,
    pixels: usize,
    batch: usize,
    mean: f32,
    std_dev: f32,
) -> Result<Vec<usize>> {
    let per_batch = pixels * batch;
    assert_eq!(weights.len(), classes * pixels);
    assert!(per_batch > 0 && images.len() % per_batch == 0);

    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let loader = ctx.new_stream()?;
    let compute = ctx.new_stream()?;
    let blas = CudaBlas::new(compute.clone())?;

    let module = ctx.load_module(compile_ptx(NORMALIZE_SRC)?)?;
    let normalize = module.load_function("normalize_pixels")?;

    let mut w_stage = unsafe { ctx.alloc_pinned::<f32>(weights.len())? };
    w_stage.as_mut_slice()?.copy_from_slice(weights);
    let mut w = unsafe { compute.alloc::<f32>(weights.len())? };
    compute.memcpy_htod(&w_stage, &mut w)?;

    let mut raw_stage = unsafe { ctx.alloc_pinned::<u8>(per_batch)? };
    let mut raw = unsafe { loader.alloc::<u8>(per_batch)? };
    let mut x = unsafe { loader.alloc::<f32>(per_batch)? };
    let mut logits = unsafe { compute.alloc::<f32>(classes * batch)? };
    let mut scores = unsafe { ctx.alloc_pinned_with_flags::<f32>(classes * batch, 0)? };
    // Allocations and the weight upload are complete before either stream uses them.
    ctx.synchronize()?;

    let n = per_batch as i32;
    let inv_std = 1.0 / std_dev;
    let launch_cfg = LaunchConfig::for_num_elems(per_batch as u32);
    let gemm_cfg = GemmConfig {
        transa: blas::cublasOperation_t::CUBLAS_OP_N,
        transb: blas::cublasOperation_t::CUBLAS_OP_N,
        m: classes as i32,
        n: batch as i32,
        k: pixels as i32,
        alpha: 1.0f32,
        lda: classes as i32,
        ldb: pixels as i32,
        beta: 0.0f32,
        ldc: classes as i32,
    };

    let mut predictions = Vec::with_capacity(images.len() / pixels);
    for chunk in images.chunks_exact(per_batch) {
        // The staging buffer is free again once the previous upload has finished.
        loader.synchronize()?;
        raw_stage.as_mut_slice()?.copy_from_slice(chunk);
        loader.memcpy_htod(&raw_stage, &mut raw)?;

        let mut launch = loader.launch_builder(&normalize);
        launch.arg(&raw).arg(&mut x).arg(&mean).arg(&inv_std).arg(&n);
        unsafe { launch.launch(launch_cfg) }?;

        unsafe { blas.gemm(gemm_cfg, &w, &x, &mut logits) }?; // EXPECT: missing_sync

        compute.memcpy_dtoh(&logits, &mut scores)?;
        compute.synchronize()?;
        for column in scores.as_slice()?.chunks_exact(classes) {
            let best = column
                .iter()
                .enumerate()
                .fold((0usize, f32::NEG_INFINITY), |acc, (i, &v)| if v > acc.1 { (i, v) } else { acc });
            predictions.push(best.0);
        }
    }
    loader.synchronize()?;

    Ok(predictions)
}
