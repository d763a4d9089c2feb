//! case: near-miss. Telemetry ring exposes one physical allocation through two runtime-layer VMM mappings (a writer view and a reader view); the publish kernel writes through one and reads back through the other, with `fence.proxy.alias` between the two accesses as the CUDA Programming Guide requires
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream, VirtualRange};

const RING_SRC: &str = r#"
extern "C" __global__ void publish_samples(float* writer_view, const float* reader_view, const float* samples,
                                           float* observed, unsigned head, unsigned n, unsigned cap) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned slot = (head + i) % cap;
    writer_view[slot] = samples[i];
    asm volatile("fence.proxy.alias;" ::: "memory");
    observed[i] = reader_view[slot];
}
"#;

pub struct TelemetryRing {
    stream: Stream,
    kernel: Kernel,
    _physical: PhysicalAllocation,
    writer: Mapping,
    reader: Mapping,
    head: u32,
    cap: u32,
}

impl TelemetryRing {
    pub fn new(ctx: &Context, min_bytes: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let size = min_bytes.div_ceil(gran).max(1) * gran;
        let physical = PhysicalAllocation::new(ctx, size)?;
        let writer = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        let reader = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(RING_SRC)?.function("publish_samples")?,
            _physical: physical,
            writer,
            reader,
            head: 0,
            cap: (size / 4) as u32,
        })
    }

    /// Publishes `samples` and returns what a reader of the ring observes for them.
    pub fn publish(&mut self, samples: &DeviceBuffer<f32>, observed: &mut DeviceBuffer<f32>, host: &mut PinnedBuffer<f32>) -> Result<()> {
        let n = samples.len() as u32;
        let (head, cap) = (self.head, self.cap);
        unsafe { self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[&self.writer, &self.reader, samples, &*observed, &head, &n, &cap])? };
        self.stream.copy_dtoh(host, observed)?;
        self.head = (self.head + n) % self.cap;
        Ok(())
    }
}
