//! case: a benchmark harness times a SAXPY kernel with the runtime layer's `EventTimer`; `elapsed_ms` waits for the stop event, which was recorded after the kernel and the D2H copy into pinned memory, so the host reads the result afterwards safely
//! expect: none
use cuda_lint_runtime::{Context, EventTimer, LaunchConfig};

const SAXPY_SRC: &str = r#"
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

#[derive(Debug)]
pub struct BenchResult {
    pub ms: f32,
    pub gbps: f64,
    pub checksum: f64,
}

pub fn bench_saxpy(n: usize, reps: usize) -> cuda_lint_runtime::Result<BenchResult> {
    let ctx = Context::new(0)?;
    let stream = ctx.new_stream()?;
    let saxpy = ctx.load_cuda(SAXPY_SRC)?.function("saxpy")?;
    let mut host = ctx.alloc_pinned::<f32>(n)?;
    host.iter_mut().enumerate().for_each(|(i, v)| *v = (i % 100) as f32);
    let mut x = ctx.alloc::<f32>(n)?;
    let mut y = ctx.alloc_zeroed::<f32>(n)?;
    unsafe { stream.copy_htod_async(&mut x, &host)? };

    let timer = EventTimer::new(&ctx)?;
    let n_i = n as i32;
    let a = 2.0f32;
    timer.start(&stream)?;
    for _ in 0..reps {
        unsafe { stream.launch(&saxpy, LaunchConfig::for_num_elems(n as u32), &[&a, &x, &y, &n_i])? };
    }
    unsafe { stream.copy_dtoh_async(&mut host, &y)? };
    timer.stop(&stream)?;
    let ms = timer.elapsed_ms()?;

    let checksum = host.iter().map(|&v| v as f64).sum();
    let bytes = (3 * n * reps * std::mem::size_of::<f32>()) as f64;
    Ok(BenchResult { ms, gbps: bytes / (ms as f64 * 1e-3) / 1e9, checksum })
}
