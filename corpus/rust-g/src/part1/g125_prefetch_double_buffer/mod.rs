//! case: training data loader with double buffering over two streams: each slot has a pinned host buffer, a device buffer and two events; the host refills a slot only after `Ring::acquire` waited on the slot's `copied` event, and the copy stream waits on the slot's `consumed` event before overwriting the device buffer
//! expect: none

mod loader;
mod ring;

use cuda_lint_runtime::{Context, LaunchConfig, Result};

pub const STEP_SRC: &str = r#"
extern "C" __global__ void sgd_on_batch(float* w, const float* batch, unsigned dim, unsigned rows, float lr) {
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= dim) return;
    float g = 0.0f;
    for (unsigned r = 0; r < rows; ++r) g += batch[(size_t)r * dim + j] - w[j];
    w[j] += lr * g / rows;
}
"#;

pub fn train_epoch(ctx: &Context, dim: usize, rows: usize, batches: usize) -> Result<Vec<f32>> {
    let compute = ctx.new_stream()?;
    let step = ctx.load_cuda(STEP_SRC)?.function("sgd_on_batch")?;
    let w = ctx.alloc_zeroed::<f32>(dim)?;
    let mut ring = ring::Ring::new(ctx, 2, dim * rows)?;
    let mut source = loader::SyntheticSource::new(dim, rows, 7);
    let (d, r, lr) = (dim as u32, rows as u32, 0.05f32);

    for i in 0..batches {
        let slot = ring.acquire(i)?;
        source.fill(&mut slot.host);
        ring.upload(i)?;
        let slot = ring.slot(i);
        compute.wait_event(&slot.copied)?;
        unsafe { compute.launch(&step, LaunchConfig::for_num_elems(d), &[&w, &slot.dev, &d, &r, &lr])? };
        compute.record_event(&slot.consumed)?;
    }

    let mut out = ctx.alloc_pinned::<f32>(dim)?;
    unsafe { compute.copy_dtoh_async(&mut out, &w)? };
    compute.synchronize()?;
    Ok(out.to_vec())
}
