//! case: a particle simulation built on the runtime layer reads energies back into a pinned buffer allocated with write_combined: true and sums them on the host
//! expect: write_combined_host_read=1
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream};

const SRC: &str = r#"
extern "C" __global__ void kinetic(const float* v, float* e, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) e[i] = 0.5f * v[i] * v[i];
}
"#;

/// All host staging of the simulation uses the same flags.
const STAGING: PinnedFlags = PinnedFlags { portable: false, device_mapped: false, write_combined: true };

pub struct Particles {
    stream: Stream,
    kinetic: Kernel,
    velocities: DeviceBuffer<f32>,
    energies: DeviceBuffer<f32>,
    energies_host: PinnedBuffer<f32>,
}

impl Particles {
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        let module = ctx.load_cuda(SRC)?;
        Ok(Self {
            stream: ctx.new_stream()?,
            kinetic: module.function("kinetic")?,
            velocities: ctx.alloc_zeroed(n)?,
            energies: ctx.alloc_zeroed(n)?,
            energies_host: ctx.alloc_pinned_with_flags(n, STAGING)?,
        })
    }

    pub fn total_energy(&mut self) -> Result<f64> {
        let n = self.velocities.len() as u32;
        unsafe { self.stream.launch(&self.kinetic, LaunchConfig::for_num_elems(n), &[&self.velocities, &self.energies, &n])? };
        unsafe { self.stream.copy_dtoh_async(&mut self.energies_host, &self.energies)? };
        self.stream.synchronize()?;
        Ok(self.energies_host.iter().map(|&e| e as f64).sum()) // EXPECT: write_combined_host_read
    }
}

pub fn energy_trace(ctx: &Context, steps: usize) -> Result<Vec<f64>> {
    let mut p = Particles::new(ctx, 1 << 20)?;
    (0..steps).map(|_| p.total_energy()).collect()
}
