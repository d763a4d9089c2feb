//! Evaluation pass of a linear probe: logits for a held-out set through cudarc's `CudaBlas`.
//! The handle starts on the context's default stream and is moved to a worker stream for
//! the evaluation; the logits are read back through their raw device address with a driver
//! copy, for the accuracy count.

use std::error::Error;
use std::ffi::c_void;

use cudarc::cublas::{sys as blas, CudaBlas, Gemm, GemmConfig};
use cudarc::driver::{sys, CudaContext, DevicePtr};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// `probe` is `classes x dim`, `features` is `dim x samples`, both column-major. Returns
/// the fraction of samples whose arg-max logit matches `labels`.
pub fn evaluate_probe(
    probe: &[f32],
    features: &[f32],
    labels: &[usize],
    classes: usize,
    dim: usize,
) -> Result<f32> {
    let samples = labels.len();
    assert_eq!(probe.len(), classes * dim);
    assert_eq!(features.len(), dim * samples);

    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let worker = ctx.new_stream()?;
    let mut blas = CudaBlas::new(stream.clone())?;

    let mut probe_stage = unsafe { ctx.alloc_pinned::<f32>(probe.len())? };
    probe_stage.as_mut_slice()?.copy_from_slice(probe);
    let mut feature_stage = unsafe { ctx.alloc_pinned::<f32>(features.len())? };
    feature_stage.as_mut_slice()?.copy_from_slice(features);

    let mut w = unsafe { stream.alloc::<f32>(probe.len())? };
    stream.memcpy_htod(&probe_stage, &mut w)?;
    let mut x = unsafe { stream.alloc::<f32>(features.len())? };
    stream.memcpy_htod(&feature_stage, &mut x)?;
    let mut logits = unsafe { worker.alloc::<f32>(classes * samples)? };

    unsafe { blas.set_stream(worker.clone())? };
    let cfg = GemmConfig {
        transa: blas::cublasOperation_t::CUBLAS_OP_N,
        transb: blas::cublasOperation_t::CUBLAS_OP_N,
        m: classes as i32,
        n: samples as i32,
        k: dim as i32,
        alpha: 1.0f32,
        lda: classes as i32,
        ldb: dim as i32,
        beta: 0.0f32,
        ldc: classes as i32,
    };
    unsafe { blas.gemm(cfg, &w, &x, &mut logits) }?;

    let mut host_logits = vec![0.0f32; classes * samples];
    let (logits_ptr, _) = logits.device_ptr(&worker);
    unsafe {
        sys::cuMemcpyDtoH_v2( // EXPECT: missing_sync
            host_logits.as_mut_ptr() as *mut c_void,
            logits_ptr,
            host_logits.len() * std::mem::size_of::<f32>(),
        )
        .result()?;
    }

    let correct = host_logits
        .chunks_exact(classes)
        .zip(labels)
        .filter(|(column, label)| {
            let best = column
                .iter()
                .enumerate()
                .fold((0usize, f32::NEG_INFINITY), |acc, (i, &v)| if v > acc.1 { (i, v) } else { acc });
            best.0 == **label
        })
        .count();

    worker.synchronize()?;
    Ok(correct as f32 / samples.max(1) as f32)
}
