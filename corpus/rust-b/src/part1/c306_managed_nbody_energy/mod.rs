//! case: an n-body loop keeps its energy trace in managed memory and sums it on the host right after launching the step
//! expect: missing_sync=1
mod kernels;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

pub struct Sim {
    stream: Stream,
    step: Kernel,
    pos: DeviceBuffer<f32>,
    vel: DeviceBuffer<f32>,
    energy: ManagedBuffer<f32>,
    n: u32,
}

impl Sim {
    pub fn new(ctx: &Context, n: u32) -> Result<Self> {
        let module = ctx.load_cuda(kernels::NBODY_SRC)?;
        Ok(Self {
            stream: ctx.new_stream()?,
            step: module.function("step")?,
            pos: ctx.alloc_zeroed(n as usize)?,
            vel: ctx.alloc_zeroed(n as usize)?,
            energy: ctx.alloc_managed(n as usize)?,
            n,
        })
    }

    /// One step; returns the kinetic energy after it.
    pub fn advance(&mut self, dt: f32) -> Result<f32> {
        let cfg = LaunchConfig::for_num_elems(self.n);
        // SAFETY: three buffers of `n` floats, `n` and `dt` by value, as `step` expects.
        unsafe {
            self.stream.launch(&self.step, cfg, &[&mut self.pos, &mut self.vel, &mut self.energy, &self.n, &dt])?
        };
        // `energy` is written by the kernel that was just enqueued.
        let e: f32 = self.energy.iter().sum(); // EXPECT: missing_sync
        Ok(e)
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        // The buffers are freed after this body.
        let _ = self.stream.synchronize();
    }
}

pub fn run(ctx: &Context, steps: usize) -> Result<Vec<f32>> {
    let mut sim = Sim::new(ctx, 4096)?;
    let trace = (0..steps).map(|_| sim.advance(1e-3)).collect::<Result<Vec<_>>>()?;
    sim.stream.synchronize()?;
    Ok(trace)
}
