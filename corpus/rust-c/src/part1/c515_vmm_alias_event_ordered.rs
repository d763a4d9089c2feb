//! case: the two-stage handoff through two mappings of one allocation, ordered: the producer stream records an event after its kernel and the consumer stream waits on it before reading through the other mapping; the consumer runs on a scoped worker thread
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Stream, VirtualRange};

const STAGES_SRC: &str = r#"
extern "C" __global__ void scatter_features(const float* raw, float* features, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) features[i] = raw[i] * 2.0f - 1.0f;
}
extern "C" __global__ void score(const float* features, float* scores, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) scores[i] = features[i] > 0.0f ? features[i] : 0.01f * features[i];
}
"#;

struct Stage {
    stream: Stream,
    kernel: Kernel,
}

pub struct OrderedHandoff {
    produce: Stage,
    consume: Stage,
    ready: Event,
    producer_view: Mapping,
    consumer_view: Mapping,
    _physical: PhysicalAllocation,
}

impl OrderedHandoff {
    pub fn new(ctx: &Context, bytes: usize) -> cuda_lint_runtime::Result<Self> {
        let module = ctx.load_cuda(STAGES_SRC)?;
        let size = bytes.next_multiple_of(ctx.vmm_granularity()?);
        let physical = PhysicalAllocation::new(ctx, size)?;
        let producer_view = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        let consumer_view = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        Ok(Self {
            produce: Stage { stream: ctx.new_stream()?, kernel: module.function("scatter_features")? },
            consume: Stage { stream: ctx.new_stream()?, kernel: module.function("score")? },
            ready: ctx.new_event()?,
            producer_view,
            consumer_view,
            _physical: physical,
        })
    }

    pub fn run(&self, raw: &DeviceBuffer<f32>, scores: &mut DeviceBuffer<f32>) -> cuda_lint_runtime::Result<()> {
        let n = raw.len() as i32;
        let cfg = LaunchConfig::for_num_elems(n as u32);
        unsafe {
            self.produce.stream.launch(&self.produce.kernel, cfg, &[raw, &self.producer_view, &n])?;
        }
        self.produce.stream.record_event(&self.ready)?;
        std::thread::scope(|s| {
            let worker = s.spawn(|| -> cuda_lint_runtime::Result<()> {
                self.consume.stream.context().bind_to_thread()?;
                self.consume.stream.wait_event(&self.ready)?;
                unsafe {
                    self.consume.stream.launch(&self.consume.kernel, cfg, &[&self.consumer_view, &*scores, &n])?;
                }
                self.consume.stream.synchronize()
            });
            worker.join().expect("consumer thread panicked")
        })
    }
}
