//! case: an adaptive ODE integrator runs two half-steps on two streams, then waits for the whole context before reading the managed error estimate and writing the next step size into managed memory
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const RK_SRC: &str = r#"
extern "C" __global__ void euler_half(float* y, const float* ctl, unsigned n, float sign) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += sign * 0.5f * ctl[0] * (-y[i]);
}
extern "C" __global__ void error_norm(const float* a, const float* b, float* ctl, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&ctl[1], fabsf(a[i] - b[i]));
}
"#;

/// `ctl[0]` is the step size, `ctl[1]` the accumulated error of the last step.
pub struct Integrator {
    fwd: Stream,
    bwd: Stream,
    half: Kernel,
    err: Kernel,
    a: DeviceBuffer<f32>,
    b: DeviceBuffer<f32>,
    ctl: ManagedBuffer<f32>,
    tol: f32,
}

impl Integrator {
    pub fn new(ctx: &Context, n: usize, dt0: f32, tol: f32) -> Result<Self> {
        let module = ctx.load_cuda(RK_SRC)?;
        let mut ctl = ctx.alloc_managed::<f32>(2)?;
        ctl[0] = dt0;
        Ok(Self {
            fwd: ctx.new_stream()?,
            bwd: ctx.new_stream()?,
            half: module.function("euler_half")?,
            err: module.function("error_norm")?,
            a: ctx.alloc_zeroed(n)?,
            b: ctx.alloc_zeroed(n)?,
            ctl,
            tol,
        })
    }

    pub fn step(&mut self, ctx: &Context) -> Result<f32> {
        let n = self.a.len() as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        let (plus, minus) = (1.0f32, -1.0f32);
        self.ctl[1] = 0.0;
        unsafe {
            self.fwd.launch(&self.half, cfg, &[&self.a, &self.ctl, &n, &plus])?;
            self.bwd.launch(&self.half, cfg, &[&self.b, &self.ctl, &n, &minus])?;
        }
        let both = ctx.new_event()?;
        self.bwd.record_event(&both)?;
        self.fwd.wait_event(&both)?;
        unsafe { self.fwd.launch(&self.err, cfg, &[&self.a, &self.b, &self.ctl, &n])? };

        // Every stream of the context is idle after this: managed memory is the host's again.
        ctx.synchronize()?;
        let err = self.ctl[1] / n as f32;
        let dt = self.ctl[0];
        self.ctl[0] = if err > self.tol { dt * 0.5 } else { (dt * 1.2).min(0.1) };
        Ok(err)
    }
}
