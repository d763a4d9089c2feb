//! case: runtime-layer ManagedBuffer of per-batch metadata written by the host only after the stream running an unrelated kernel was synchronized
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const SRC: &str = r#"
extern "C" __global__ void normalize(float* x, float inv, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= inv;
}
"#;

pub struct BatchRunner {
    stream: Stream,
    kernel: Kernel,
    data: DeviceBuffer<f32>,
    meta: ManagedBuffer<u32>,
}

impl BatchRunner {
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        Ok(BatchRunner {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(SRC)?.function("normalize")?,
            data: ctx.alloc_zeroed(n)?,
            meta: ctx.alloc_managed(4)?,
        })
    }

    pub fn run_batch(&mut self, index: u32) -> Result<()> {
        let n = self.data.len() as u32;
        let inv = 1.0f32 / (index + 1) as f32;
        unsafe { self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[&self.data, &inv, &n])? };
        self.stream.synchronize()?;
        self.meta[0] = index;
        self.meta[1] = n;
        Ok(())
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let mut r = BatchRunner::new(&ctx, 1 << 18)?;
    (0..8).try_for_each(|i| r.run_batch(i))?;
    println!("last batch {}", r.meta[0]);
    Ok(())
}
