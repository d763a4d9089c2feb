//! case: a readback struct syncs in a private helper before reading, and its Drop impl waits for the stream before the pinned buffer is freed
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Module, PinnedBuffer, Result, Stream};

const SCALE_SRC: &str = r#"
extern "C" __global__ void scale(float* x, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
"#;

pub struct Readback {
    stream: Stream,
    host: PinnedBuffer<f32>,
    dev: DeviceBuffer<f32>,
    _module: Module,
    scale: Kernel,
}

impl Readback {
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        let module = ctx.load_cuda(SCALE_SRC)?;
        let scale = module.function("scale")?;
        let stream = ctx.new_stream()?;
        let mut host = ctx.alloc_pinned::<f32>(n)?;
        host.fill(1.0);
        let dev = stream.clone_htod(&host)?;
        Ok(Self { stream, host, dev, _module: module, scale })
    }

    fn finish(&self) -> Result<()> {
        self.stream.synchronize()
    }

    fn enqueue(&mut self, a: f32) -> Result<()> {
        let n = self.dev.len() as u32;
        // SAFETY: `scale(float*, float, unsigned)`; `dev` holds n floats and lives in `self`.
        unsafe { self.stream.launch(&self.scale, LaunchConfig::for_num_elems(n), &[&self.dev, &a, &n])? };
        // SAFETY: `host` is only read after `finish`.
        unsafe { self.stream.copy_dtoh_async(&mut self.host, &self.dev)? };
        Ok(())
    }

    pub fn compute(&mut self, a: f32) -> Result<f32> {
        self.enqueue(a)?;
        self.finish()?;
        Ok(self.host.iter().sum())
    }

    /// Starts a step whose result nobody reads: Drop waits for it before `host` is freed.
    pub fn fire_and_forget(mut self, a: f32) -> Result<()> {
        self.enqueue(a)
    }
}

impl Drop for Readback {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
    }
}

pub fn run(ctx: &Context) -> Result<f32> {
    let mut rb = Readback::new(ctx, 4096)?;
    let total = rb.compute(0.5)?;
    rb.fire_and_forget(2.0)?;
    Ok(total)
}
