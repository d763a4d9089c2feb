//! case: post-training int8 quantisation of a weight matrix: one `staging` helper hands out write-combined pinned buffers for the upload, and the same helper is reused for the per-row absmax readback, which the host then reads to build the quantisation metadata
//! expect: write_combined_host_read=1

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, PinnedBuffer, PinnedFlags, Result};

const ABSMAX_SRC: &str = r#"
extern "C" __global__ void row_absmax(const float* w, float* scales, unsigned rows, unsigned cols) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float m = 0.0f;
    for (unsigned c = 0; c < cols; ++c) m = fmaxf(m, fabsf(w[(size_t)r * cols + c]));
    scales[r] = m;
}

extern "C" __global__ void quantize_rows(const float* w, const float* inv_scales, signed char* q,
                                         unsigned rows, unsigned cols) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols) return;
    float v = w[i] * inv_scales[i / cols];
    q[i] = (signed char)fmaxf(-127.0f, fminf(127.0f, rintf(v)));
}
"#;

/// Pinned staging memory: write-combined, since host->device staging is what it is for.
fn staging<T: cuda_lint_runtime::DeviceRepr>(ctx: &Context, len: usize) -> Result<PinnedBuffer<T>> {
    ctx.alloc_pinned_with_flags(len, PinnedFlags { write_combined: true, ..PinnedFlags::default() })
}

pub struct QuantizedLinear {
    pub q: DeviceBuffer<i8>,
    pub scales: Vec<f32>,
    pub rows: usize,
    pub cols: usize,
}

pub fn quantize_linear(ctx: &Context, weights: &[f32], rows: usize, cols: usize) -> Result<QuantizedLinear> {
    let stream = ctx.new_stream()?;
    let module = ctx.load_cuda(ABSMAX_SRC)?;
    let absmax = module.function("row_absmax")?;
    let quant = module.function("quantize_rows")?;

    let mut upload = staging::<f32>(ctx, rows * cols)?;
    upload.copy_from_slice(weights);
    let mut w = ctx.alloc::<f32>(rows * cols)?;
    let scales_dev = ctx.alloc::<f32>(rows)?;
    let mut absmax_host = staging::<f32>(ctx, rows)?;
    let (r, c) = (rows as u32, cols as u32);
    unsafe {
        stream.copy_htod_async(&mut w, &upload)?;
        stream.launch(&absmax, LaunchConfig::for_num_elems(r), &[&w, &scales_dev, &r, &c])?;
        stream.copy_dtoh_async(&mut absmax_host, &scales_dev)?;
    }
    stream.synchronize()?;

    let scales: Vec<f32> = absmax_host.iter().map(|m| m.max(1e-8) / 127.0).collect(); // EXPECT: write_combined_host_read
    let mut inv_stage = staging::<f32>(ctx, rows)?;
    inv_stage.iter_mut().zip(&scales).for_each(|(dst, s)| *dst = 1.0 / s);
    let mut inv_dev = ctx.alloc::<f32>(rows)?;
    let q = ctx.alloc::<i8>(rows * cols)?;
    unsafe {
        stream.copy_htod_async(&mut inv_dev, &inv_stage)?;
        stream.launch(&quant, LaunchConfig::for_num_elems(r * c), &[&w, &inv_dev, &q, &r, &c])?;
    }
    stream.synchronize()?;
    Ok(QuantizedLinear { q, scales, rows, cols })
}
