//! case: 3D 7-point stencil benchmark (cuda-lint-runtime) that times the kernel and the readback with an `EventTimer`; the result in plain pinned memory is read after `timer.elapsed_ms()`, which synchronizes the stop event recorded after the copy
//! expect: none

use std::sync::OnceLock;

use cuda_lint_runtime::{Context, EventTimer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const STENCIL_SRC: &str = r#"
extern "C" __global__ void laplace7(const float* in, float* out, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
    if (x <= 0 || y <= 0 || z <= 0 || x >= n - 1 || y >= n - 1 || z >= n - 1) return;
    int i = (z * n + y) * n + x, s = n * n;
    out[i] = in[i - 1] + in[i + 1] + in[i - n] + in[i + n] + in[i - s] + in[i + s] - 6.f * in[i];
}
"#;

static CONTEXT: OnceLock<Context> = OnceLock::new();

fn context() -> Result<&'static Context> {
    match CONTEXT.get() {
        Some(c) => Ok(c),
        None => {
            let c = Context::new(0)?;
            Ok(CONTEXT.get_or_init(|| c))
        }
    }
}

pub struct BenchResult {
    pub ms: f32,
    pub gpts: f64,
    pub checksum: f64,
}

pub struct StencilBench {
    stream: Stream,
    kernel: Kernel,
    n: usize,
}

impl StencilBench {
    pub fn new(n: usize) -> Result<Self> {
        let ctx = context()?;
        Ok(Self { stream: ctx.new_stream()?, kernel: ctx.load_cuda(STENCIL_SRC)?.function("laplace7")?, n })
    }

    pub fn run(&self) -> Result<BenchResult> {
        let ctx = context()?;
        let cells = self.n * self.n * self.n;
        let mut host: PinnedBuffer<f32> = ctx.alloc_pinned(cells)?;
        host.iter_mut().enumerate().for_each(|(i, v)| *v = ((i * 2654435761) % 1000) as f32 * 1e-3);
        let input = self.stream.clone_htod(&host)?;
        let mut output = ctx.alloc_zeroed::<f32>(cells)?;
        let n = self.n as i32;
        let cfg = LaunchConfig { grid: ((self.n as u32).div_ceil(128), self.n as u32, self.n as u32), block: (128, 1, 1), shared_mem_bytes: 0 };

        let timer = EventTimer::new(ctx)?;
        timer.start(&self.stream)?;
        unsafe {
            self.stream.launch(&self.kernel, cfg, &[&input, &mut output, &n])?;
            self.stream.copy_dtoh_async(&mut host, &output)?;
        }
        timer.stop(&self.stream)?;
        let ms = timer.elapsed_ms()?;

        let checksum = host.iter().map(|&v| v as f64).sum();
        Ok(BenchResult { ms, gpts: cells as f64 / (ms as f64 * 1e6), checksum })
    }
}
