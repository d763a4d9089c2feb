//! case: a long kernel reports progress into mapped pinned memory (device_mapped); the host reads the pinned buffer itself after synchronizing
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream};

const WORK_SRC: &str = r#"
extern "C" __global__ void crunch(const float* in, unsigned* progress, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0.0f) atomicAdd(progress, 1u);
}
"#;

pub struct Cruncher {
    stream: Stream,
    crunch: Kernel,
    progress: PinnedBuffer<u32>,
}

impl Cruncher {
    pub fn new(ctx: &Context) -> Result<Self> {
        let flags = PinnedFlags { device_mapped: true, ..PinnedFlags::default() };
        Ok(Self {
            stream: ctx.new_stream()?,
            crunch: ctx.load_cuda(WORK_SRC)?.function("crunch")?,
            progress: ctx.alloc_pinned_with_flags(1, flags)?,
        })
    }

    pub fn positives(&mut self, input: &DeviceBuffer<f32>) -> Result<u32> {
        self.progress[0] = 0;
        let d_progress = self.progress.mapped_device_ptr()?;
        let n = input.len() as u32;
        // SAFETY: `crunch(const float*, unsigned*, unsigned)`; the pinned buffer outlives the kernel.
        unsafe { self.stream.launch(&self.crunch, LaunchConfig::for_num_elems(n), &[input, &d_progress, &n])? };
        self.stream.synchronize()?;
        Ok(self.progress[0])
    }
}
