//! case: a particle system views its ManagedBuffer through the raw device pointer (managed memory is host-addressable) after synchronizing
//! expect: none
use cuda_lint_runtime::{Context, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const ADVECT_SRC: &str = r#"
extern "C" __global__ void advect(float* x, float v, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += v;
}
"#;

pub struct Particles {
    stream: Stream,
    advect: Kernel,
    x: ManagedBuffer<f32>,
}

impl Particles {
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        let advect = ctx.load_cuda(ADVECT_SRC)?.function("advect")?;
        Ok(Self { stream: ctx.new_stream()?, advect, x: ctx.alloc_managed(n)? })
    }

    pub fn step_and_centroid(&mut self, v: f32) -> Result<f32> {
        let n = self.x.num_elems() as u32;
        // SAFETY: `advect(float*, float, unsigned)` over `n` managed floats.
        unsafe { self.stream.launch(&self.advect, LaunchConfig::for_num_elems(n), &[&mut self.x, &v, &n])? };
        self.stream.synchronize()?;
        // Managed memory: the device address is also a valid host address.
        let p = self.x.device_ptr().as_raw() as usize as *const f32;
        let xs = unsafe { std::slice::from_raw_parts(p, n as usize) };
        Ok(xs.iter().sum::<f32>() / n.max(1) as f32)
    }
}
