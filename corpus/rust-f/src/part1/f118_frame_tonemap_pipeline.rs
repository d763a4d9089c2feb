//! case: a producer/consumer pair shares a scratch area through two VMM views of one physical allocation (runtime layer); the producer stream writes a frame through its view and the consumer stream reads it through the other view, with no event between the two streams
//! expect: unfenced_vmm_alias=1

use cuda_lint_runtime::{
    Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange,
};

const STAGES_SRC: &str = r#"
extern "C" __global__ void render_frame(float* frame, unsigned int w, unsigned int h, float t)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w * h) return;
    float x = (float)(i % w) / w, y = (float)(i / w) / h;
    frame[i] = 0.5f + 0.5f * __sinf(10.0f * (x + y) + t);
}

extern "C" __global__ void tone_map(const float* frame, unsigned char* out, unsigned int n, float exposure)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = 1.0f - __expf(-frame[i] * exposure);
    out[i] = (unsigned char)(255.0f * v);
}
"#;

struct Scratch {
    producer_view: Mapping,
    consumer_view: Mapping,
    _physical: PhysicalAllocation,
}

pub struct FramePipeline {
    producer: Stream,
    consumer: Stream,
    render: Kernel,
    tone: Kernel,
    scratch: Scratch,
    ldr: DeviceBuffer<u8>,
    width: u32,
    height: u32,
}

impl FramePipeline {
    pub fn new(ctx: &Context, width: u32, height: u32) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let size = ((width * height) as usize * 4).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, size)?;
        let scratch = Scratch {
            producer_view: VirtualRange::reserve(ctx, size)?.map(&physical, 0)?,
            consumer_view: VirtualRange::reserve(ctx, size)?.map(&physical, 0)?,
            _physical: physical,
        };
        let module = ctx.load_cuda(STAGES_SRC)?;
        Ok(Self {
            producer: ctx.new_stream()?,
            consumer: ctx.new_stream()?,
            render: module.function("render_frame")?,
            tone: module.function("tone_map")?,
            scratch,
            ldr: ctx.alloc_zeroed::<u8>((width * height) as usize)?,
            width,
            height,
        })
    }

    pub fn frame(&mut self, t: f32, exposure: f32, out: &mut [u8]) -> Result<()> {
        let n = self.width * self.height;
        let cfg = LaunchConfig::for_num_elems(n);
        unsafe {
            self.producer
                .launch(&self.render, cfg, &[&self.scratch.producer_view, &self.width, &self.height, &t])?;
            self.consumer
                .launch(&self.tone, cfg, &[&self.scratch.consumer_view, &mut self.ldr, &n, &exposure])?; // EXPECT: unfenced_vmm_alias
        }
        self.producer.synchronize()?;
        self.consumer.copy_dtoh(out, &self.ldr)?;
        Ok(())
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let mut pipeline = FramePipeline::new(&ctx, 640, 480)?;
    let mut out = ctx.alloc_pinned::<u8>(640 * 480)?;
    for k in 0..8 {
        pipeline.frame(k as f32 * 0.1, 1.5, &mut out)?;
        println!("frame {k}: first pixel {}", out[0]);
    }
    Ok(())
}
