//! case: a two-stream pipeline (compute and copy, ordered by an event) synchronizes the compute stream and then reads the pinned result that the copy stream writes
//! expect: missing_sync=1
use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, Module, PinnedBuffer, Result, Stream};

const NORM_SRC: &str = r#"
extern "C" __global__ void normalize(float* x, float inv, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * inv;
}
"#;

pub struct TwoStreams {
    compute: Stream,
    copy: Stream,
    computed: Event,
    _module: Module,
    normalize: Kernel,
    dev: DeviceBuffer<f32>,
    host: PinnedBuffer<f32>,
}

impl TwoStreams {
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        let module = ctx.load_cuda(NORM_SRC)?;
        let normalize = module.function("normalize")?;
        Ok(Self {
            compute: ctx.new_stream()?,
            copy: ctx.new_stream()?,
            computed: ctx.new_event()?,
            _module: module,
            normalize,
            dev: ctx.alloc_zeroed(n)?,
            host: ctx.alloc_pinned(n)?,
        })
    }

    pub fn step(&mut self, inv: f32) -> Result<f32> {
        let n = self.dev.len() as u32;
        // SAFETY: normalize(float*, float, unsigned) over dev's n floats.
        unsafe { self.compute.launch(&self.normalize, LaunchConfig::for_num_elems(n), &[&self.dev, &inv, &n])? };
        self.compute.record_event(&self.computed)?;
        self.copy.wait_event(&self.computed)?;
        // SAFETY: `host` lives in self.
        unsafe { self.copy.copy_dtoh_async(&mut self.host, &self.dev)? };
        self.compute.synchronize()?; // the kernel is done, the copy on `copy` need not be
        Ok(self.host.iter().sum()) // EXPECT: missing_sync
    }
}
