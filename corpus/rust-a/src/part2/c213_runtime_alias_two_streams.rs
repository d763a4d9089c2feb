//! case: runtime-layer mappings A and B of one PhysicalAllocation; a producer stream writes through A while a consumer stream reads through B with no event between them
//! expect: unfenced_vmm_alias=1
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const KERNELS: &str = r#"
extern "C" __global__ void produce(float* dst, unsigned n, float seed) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = seed + (float)i;
}
extern "C" __global__ void consume(const float* src, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = src[i] * src[i];
}
"#;

struct DualView {
    producer_view: Mapping,
    consumer_view: Mapping,
}

impl DualView {
    fn new(ctx: &Context, bytes: usize) -> Result<DualView> {
        let gran = ctx.vmm_granularity()?;
        let size = bytes.div_ceil(gran) * gran;
        let phys = PhysicalAllocation::new(ctx, size)?;
        let producer_view = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
        let consumer_view = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
        Ok(DualView { producer_view, consumer_view })
    }
}

struct Stage {
    produce: Kernel,
    consume: Kernel,
    producer: Stream,
    consumer: Stream,
}

impl Stage {
    fn step(&self, views: &DualView, out: &mut DeviceBuffer<f32>, seed: f32) -> Result<()> {
        let n = out.len() as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        unsafe {
            self.producer.launch(&self.produce, cfg, &[&views.producer_view, &n, &seed])?;
            self.consumer.launch(&self.consume, cfg, &[&views.consumer_view, out, &n])?; // EXPECT: unfenced_vmm_alias
        }
        Ok(())
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let module = ctx.load_cuda(KERNELS)?;
    let stage = Stage {
        produce: module.function("produce")?,
        consume: module.function("consume")?,
        producer: ctx.new_stream()?,
        consumer: ctx.new_stream()?,
    };
    let n = 1 << 18;
    let views = DualView::new(&ctx, n * 4)?;
    let mut out = ctx.alloc_zeroed::<f32>(n)?;
    stage.step(&views, &mut out, 1.0)?;
    stage.consumer.synchronize()?;
    stage.producer.synchronize()?;
    Ok(())
}
