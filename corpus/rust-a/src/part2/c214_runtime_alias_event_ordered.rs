//! case: the same producer/consumer over two VMM aliases, but the consumer stream waits on an event recorded after the producer kernel
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

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

pub struct Pipeline {
    produce: Kernel,
    consume: Kernel,
    producer: Stream,
    consumer: Stream,
    produced: Event,
    consumed: Event,
    write_alias: Mapping,
    read_alias: Mapping,
}

impl Pipeline {
    pub fn new(ctx: &Context, n: usize) -> Result<Pipeline> {
        let module = ctx.load_cuda(KERNELS)?;
        let gran = ctx.vmm_granularity()?;
        let size = (n * 4).div_ceil(gran) * gran;
        let phys = PhysicalAllocation::new(ctx, size)?;
        let aliases: Vec<Mapping> = (0..2)
            .map(|_| VirtualRange::reserve(ctx, size).and_then(|r| r.map(&phys, 0)))
            .collect::<Result<_>>()?;
        let [write_alias, read_alias]: [Mapping; 2] = aliases.try_into().ok().expect("two aliases");
        Ok(Pipeline {
            produce: module.function("produce")?,
            consume: module.function("consume")?,
            producer: ctx.new_stream()?,
            consumer: ctx.new_stream()?,
            produced: ctx.new_event()?,
            consumed: ctx.new_event()?,
            write_alias,
            read_alias,
        })
    }

    pub fn step(&self, out: &mut DeviceBuffer<f32>, seed: f32) -> Result<()> {
        let n = out.len() as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        // the next write must not overtake the previous step's reads
        self.producer.wait_event(&self.consumed)?;
        unsafe { self.producer.launch(&self.produce, cfg, &[&self.write_alias, &n, &seed])? };
        self.producer.record_event(&self.produced)?;
        self.consumer.wait_event(&self.produced)?;
        unsafe { self.consumer.launch(&self.consume, cfg, &[&self.read_alias, out, &n])? };
        self.consumer.record_event(&self.consumed)?;
        Ok(())
    }

    pub fn finish(&self) -> Result<()> {
        self.consumer.synchronize()
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let n = 1 << 18;
    let pipe = Pipeline::new(&ctx, n)?;
    let mut out = ctx.alloc_zeroed::<f32>(n)?;
    for step in 0..4 {
        pipe.step(&mut out, step as f32)?;
    }
    pipe.finish()
}
