//! case: micro-benchmark harness for a fused softmax kernel: it times only the kernel (the timer's stop event is recorded before the result is copied back), then waits through `EventTimer::elapsed_ms` and checks the copied result; that wait covers the work recorded before the stop event, not the device-to-host copy enqueued after it
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, EventTimer, LaunchConfig, Result};

const SOFTMAX_SRC: &str = r#"
extern "C" __global__ void fused_softmax(const float* x, float* y, unsigned rows, unsigned cols) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* in = x + (size_t)r * cols;
    float* out = y + (size_t)r * cols;
    float m = -1e30f, z = 0.0f;
    for (unsigned c = 0; c < cols; ++c) m = fmaxf(m, in[c]);
    for (unsigned c = 0; c < cols; ++c) z += expf(in[c] - m);
    for (unsigned c = 0; c < cols; ++c) out[c] = expf(in[c] - m) / z;
}
"#;

#[derive(Debug)]
pub struct BenchResult {
    pub kernel_ms: f32,
    pub gbps: f64,
    pub max_row_err: f32,
}

pub fn bench_softmax(ctx: &Context, rows: usize, cols: usize) -> Result<BenchResult> {
    let stream = ctx.new_stream()?;
    let kernel = ctx.load_cuda(SOFTMAX_SRC)?.function("fused_softmax")?;
    let mut input = ctx.alloc_pinned::<f32>(rows * cols)?;
    input.iter_mut().enumerate().for_each(|(i, v)| *v = ((i * 7919) % 1000) as f32 / 100.0);
    let mut x = ctx.alloc::<f32>(rows * cols)?;
    let y = ctx.alloc::<f32>(rows * cols)?;
    let mut output = ctx.alloc_pinned::<f32>(rows * cols)?;
    let (r, c) = (rows as u32, cols as u32);

    unsafe { stream.copy_htod_async(&mut x, &input)? };
    let timer = EventTimer::new(ctx)?;
    timer.start(&stream)?;
    unsafe { stream.launch(&kernel, LaunchConfig::for_num_elems(r), &[&x, &y, &r, &c])? };
    timer.stop(&stream)?;
    unsafe { stream.copy_dtoh_async(&mut output, &y)? };

    let kernel_ms = timer.elapsed_ms()?;
    let max_row_err = output // EXPECT: missing_sync
        .chunks(cols)
        .map(|row| (row.iter().sum::<f32>() - 1.0).abs())
        .fold(0.0f32, f32::max);
    stream.synchronize()?;

    let bytes = 2.0 * (rows * cols * 4) as f64;
    Ok(BenchResult { kernel_ms, gbps: bytes / (kernel_ms as f64 * 1e-3) / 1e9, max_row_err })
}
