//! case: SPH fluid step with runtime-layer managed memory: the density kernel uses `particles`, and right after the launch the host reads particle 0 (the kernel writes it: missing sync) and rewrites the managed `params` block, which the running kernel does not use (a fault on devices without concurrent managed access)
//! expect: missing_sync=1, managed_concurrent_access=1

use cuda_lint_runtime::{Context, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const SPH_SRC: &str = r#"
extern "C" __global__ void density(float* p, unsigned n, float h) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float rho = 0.f;
    for (unsigned j = 0; j < n; ++j) {
        float dx = p[4*i] - p[4*j], dy = p[4*i+1] - p[4*j+1], dz = p[4*i+2] - p[4*j+2];
        float r2 = dx*dx + dy*dy + dz*dz;
        if (r2 < h * h) { float q = h * h - r2; rho += q * q * q; }
    }
    p[4*i+3] = rho;
}
extern "C" __global__ void integrate(float* p, const float* params, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    p[4*i+1] -= params[1] * params[2];   /* gravity * dt */
}
"#;

/// params[0] = smoothing length h, params[1] = gravity, params[2] = dt.
pub struct SphSolver {
    stream: Stream,
    density: Kernel,
    integrate: Kernel,
    particles: ManagedBuffer<f32>,
    params: ManagedBuffer<f32>,
    n: u32,
}

impl SphSolver {
    pub fn new(ctx: &Context, positions: &[[f32; 3]]) -> Result<Self> {
        let module = ctx.load_cuda(SPH_SRC)?;
        let mut particles = ctx.alloc_managed::<f32>(positions.len() * 4)?;
        for (dst, p) in particles.chunks_exact_mut(4).zip(positions) {
            dst[..3].copy_from_slice(p);
        }
        let mut params = ctx.alloc_managed::<f32>(3)?;
        params.copy_from_slice(&[0.05, 9.81, 1e-3]);
        Ok(Self {
            stream: ctx.new_stream()?,
            density: module.function("density")?,
            integrate: module.function("integrate")?,
            particles,
            params,
            n: positions.len() as u32,
        })
    }

    /// One step with adaptive smoothing length; returns the density of the probe particle.
    pub fn step(&mut self) -> Result<f32> {
        let cfg = LaunchConfig::for_num_elems(self.n);
        let h = self.params[0];
        unsafe { self.stream.launch(&self.density, cfg, &[&self.particles, &self.n, &h])? };
        let probe_rho = self.particles[3]; // EXPECT: missing_sync
        // Adapt h from the probe density for the next step.
        self.params[0] = (h * (1000.0 / probe_rho.max(1e-6)).cbrt()).clamp(0.01, 0.2); // EXPECT: managed_concurrent_access
        unsafe { self.stream.launch(&self.integrate, cfg, &[&self.particles, &self.params, &self.n])? };
        self.stream.synchronize()?;
        Ok(probe_rho)
    }
}
