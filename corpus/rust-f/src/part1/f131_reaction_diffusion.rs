//! case: a reaction-diffusion controller keeps its tuning knobs in a runtime-layer `ManagedBuffer`; each tick launches the diffusion kernel (which does not use the knobs) and then updates the knobs from the host while that kernel may still run, before launching the reaction kernel that reads them
//! expect: managed_concurrent_access=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const RD_SRC: &str = r#"
extern "C" __global__ void diffuse(const float* u, float* u_next, unsigned int w, unsigned int h, float d)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w * h) return;
    unsigned int x = i % w, y = i / w;
    float c = u[i];
    float l = u[y * w + (x + w - 1) % w], r = u[y * w + (x + 1) % w];
    float t = u[((y + h - 1) % h) * w + x], b = u[((y + 1) % h) * w + x];
    u_next[i] = c + d * (l + r + t + b - 4.0f * c);
}

extern "C" __global__ void react(float* u, const float* knobs, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float feed = knobs[0], kill = knobs[1];
    u[i] += feed * (1.0f - u[i]) - kill * u[i];
}
"#;

pub struct Controller {
    stream: Stream,
    diffuse: Kernel,
    react: Kernel,
    field: [DeviceBuffer<f32>; 2],
    knobs: ManagedBuffer<f32>,
    width: u32,
    height: u32,
    tick: usize,
}

impl Controller {
    pub fn new(ctx: &Context, width: u32, height: u32) -> Result<Self> {
        let module = ctx.load_cuda(RD_SRC)?;
        let n = (width * height) as usize;
        let mut knobs = ctx.alloc_managed::<f32>(2)?;
        knobs[0] = 0.055;
        knobs[1] = 0.062;
        Ok(Self {
            stream: ctx.new_stream()?,
            diffuse: module.function("diffuse")?,
            react: module.function("react")?,
            field: [ctx.alloc_zeroed::<f32>(n)?, ctx.alloc_zeroed::<f32>(n)?],
            knobs,
            width,
            height,
            tick: 0,
        })
    }

    /// One tick; `feed` is the operator's current slider value.
    pub fn tick(&mut self, feed: f32) -> Result<()> {
        let n = self.width * self.height;
        let cfg = LaunchConfig::for_num_elems(n);
        let cur = self.tick % 2;
        let [a, b] = &mut self.field;
        let (src, dst) = if cur == 0 { (&*a, b) } else { (&*b, a) };
        unsafe {
            self.stream.launch(&self.diffuse, cfg, &[src, &mut *dst, &self.width, &self.height, &0.2f32])?;
        }
        self.knobs[0] = feed.clamp(0.01, 0.1); // EXPECT: managed_concurrent_access
        unsafe {
            self.stream.launch(&self.react, cfg, &[&mut *dst, &self.knobs, &n])?;
        }
        self.stream.synchronize()?;
        self.tick += 1;
        Ok(())
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let mut ctl = Controller::new(&ctx, 512, 512)?;
    for t in 0..100 {
        ctl.tick(0.04 + 0.0002 * t as f32)?;
    }
    println!("ran {} ticks", ctl.tick);
    Ok(())
}
