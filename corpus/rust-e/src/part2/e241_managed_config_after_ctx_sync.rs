//! case: near-miss of managed access during kernels: a two-stream solver updates its managed convergence parameters on the host only after `Context::synchronize` has waited for the kernels of both streams
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const JACOBI_SRC: &str = r#"
extern "C" __global__ void jacobi_half(const float* a_diag, const float* rhs, const float* x_old, float* x_new,
                                      const float* params, unsigned int begin, unsigned int end) {
    unsigned int i = begin + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < end) {
        float omega = params[0];
        float upd = (rhs[i] - (i > 0 ? x_old[i - 1] : 0.f)) / a_diag[i];
        x_new[i] = (1.f - omega) * x_old[i] + omega * upd;
    }
}
"#;

pub struct Solver {
    streams: [Stream; 2],
    kernel: Kernel,
    params: ManagedBuffer<f32>,
}

impl Solver {
    pub fn new(ctx: &Context) -> Result<Self> {
        let mut params = ctx.alloc_managed::<f32>(2)?;
        params[0] = 1.0; // omega
        params[1] = 0.0; // last residual
        Ok(Self { streams: [ctx.new_stream()?, ctx.new_stream()?], kernel: ctx.load_cuda(JACOBI_SRC)?.function("jacobi_half")?, params })
    }

    pub fn sweep(&mut self, ctx: &Context, a_diag: &DeviceBuffer<f32>, rhs: &DeviceBuffer<f32>, x_old: &DeviceBuffer<f32>, x_new: &DeviceBuffer<f32>, residual: f32) -> Result<f32> {
        let n = rhs.len() as u32;
        let mid = n / 2;
        for (s, (begin, end)) in self.streams.iter().zip([(0u32, mid), (mid, n)]) {
            let cfg = LaunchConfig::for_num_elems(end - begin);
            unsafe { s.launch(&self.kernel, cfg, &[a_diag, rhs, x_old, x_new, &self.params, &begin, &end])? };
        }
        ctx.synchronize()?;

        // adapt the relaxation factor for the next sweep
        let previous = self.params[1];
        if previous > 0.0 && residual > previous {
            self.params[0] = (self.params[0] * 0.8).max(0.3);
        }
        self.params[1] = residual;
        Ok(self.params[0])
    }
}
