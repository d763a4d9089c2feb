//! case: feature-upload ring of three cudarc `PinnedHostSlice`s with separate copy and compute streams; each slot is refilled through `as_mut_slice`, which waits on the slot's event that cudarc recorded after its last copy (the context has several streams, so event tracking is active), and the kernel's arguments make the streams wait on each other
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const ACCUM_SRC: &str = r#"
extern "C" __global__ void accumulate_features(float* acc, const float* batch, unsigned dim, unsigned rows) {
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= dim) return;
    float s = 0.0f;
    for (unsigned r = 0; r < rows; ++r) s += batch[(size_t)r * dim + j];
    acc[j] += s;
}
"#;

const SLOTS: usize = 3;

pub struct UploadRing {
    staging: Vec<PinnedHostSlice<f32>>,
    device: Vec<CudaSlice<f32>>,
}

pub fn feature_means(batches: &[Vec<f32>], dim: usize, rows: usize) -> Result<CudaSlice<f32>> {
    let ctx: Arc<CudaContext> = CudaContext::new(0)?;
    let h2d = ctx.new_stream()?;
    let compute = ctx.new_stream()?;
    let accumulate = ctx.load_module(compile_ptx(ACCUM_SRC)?)?.load_function("accumulate_features")?;

    let mut ring = UploadRing {
        staging: (0..SLOTS).map(|_| unsafe { ctx.alloc_pinned::<f32>(dim * rows) }).collect::<std::result::Result<_, _>>()?,
        device: (0..SLOTS).map(|_| h2d.alloc_zeros::<f32>(dim * rows)).collect::<std::result::Result<_, _>>()?,
    };
    let mut acc = compute.alloc_zeros::<f32>(dim)?;
    let (d, r) = (dim as u32, rows as u32);

    for (i, batch) in batches.iter().enumerate() {
        let k = i % SLOTS;
        let n = batch.len().min(dim * rows);
        ring.staging[k].as_mut_slice()?[..n].copy_from_slice(&batch[..n]);
        h2d.memcpy_htod(&ring.staging[k], &mut ring.device[k])?;

        let mut launch = compute.launch_builder(&accumulate);
        launch.arg(&mut acc).arg(&ring.device[k]).arg(&d).arg(&r);
        unsafe { launch.launch(LaunchConfig::for_num_elems(d))? };
    }

    compute.synchronize()?;
    Ok(acc)
}
