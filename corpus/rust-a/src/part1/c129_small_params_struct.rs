//! case: a #[repr(C)] launch-parameter struct (16 bytes) uploaded with copy_htod_async straight from the stack before each kernel, then changed for the next frame
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, DeviceRepr, Kernel, LaunchConfig, Module, Result, Stream};

const BLEND_SRC: &str = r#"
struct Params { float alpha; float beta; unsigned n; unsigned frame; };
extern "C" __global__ void blend(float* out, const float* a, const float* b, const Params* p) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p->n) out[i] = p->alpha * a[i] + p->beta * b[i];
}
"#;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Params {
    pub alpha: f32,
    pub beta: f32,
    pub n: u32,
    pub frame: u32,
}

// SAFETY: repr(C), plain numbers, every bit pattern valid.
unsafe impl DeviceRepr for Params {}

pub struct Blender {
    stream: Stream,
    _module: Module,
    blend: Kernel,
    params_dev: DeviceBuffer<Params>,
}

impl Blender {
    pub fn new(ctx: &Context) -> Result<Self> {
        let module = ctx.load_cuda(BLEND_SRC)?;
        let blend = module.function("blend")?;
        Ok(Self { stream: ctx.new_stream()?, _module: module, blend, params_dev: ctx.alloc(1)? })
    }

    pub fn run(&mut self, out: &DeviceBuffer<f32>, a: &DeviceBuffer<f32>, b: &DeviceBuffer<f32>, frames: u32) -> Result<()> {
        let mut params = Params { alpha: 1.0, beta: 0.0, n: out.len() as u32, frame: 0 };
        for frame in 0..frames {
            params.frame = frame;
            params.beta = frame as f32 / frames as f32;
            params.alpha = 1.0 - params.beta;
            // SAFETY: 16 bytes from the stack; staged by the driver before the call returns.
            unsafe { self.stream.copy_htod_async(&mut self.params_dev, std::slice::from_ref(&params))? };
            let cfg = LaunchConfig::for_num_elems(params.n);
            // SAFETY: blend(float*, const float*, const float*, const Params*).
            unsafe { self.stream.launch(&self.blend, cfg, &[out, a, b, &self.params_dev])? };
        }
        self.stream.synchronize()
    }
}
