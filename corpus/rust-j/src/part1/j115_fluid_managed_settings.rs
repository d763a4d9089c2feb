//! case: shallow-water solver keeps its tunables in a managed settings block (read by the host UI and by an occasional diagnostics kernel) but passes dt to the advection kernel by value; right after launching advection on device buffers it reads the CFL number from and writes the next dt into the managed block while the kernel may still run
//! expect: managed_concurrent_access=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const SWE_SRC: &str = r#"
extern "C" __global__ void advect(const float* h, const float* u, const float* v, float* h_next,
                                  int nx, int ny, float dt, float dx) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
    int i = y * nx + x;
    float dhdx = (h[i + 1] - h[i - 1]) / (2.0f * dx);
    float dhdy = (h[i + nx] - h[i - nx]) / (2.0f * dx);
    h_next[i] = h[i] - dt * (u[i] * dhdx + v[i] * dhdy);
}

extern "C" __global__ void diagnostics(const float* h, int n, const float* settings, float* out) {
    __shared__ float acc[256];
    float s = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) s += h[i];
    acc[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int k = 0; k < blockDim.x; ++k) t += acc[k];
        out[0] = t * settings[2];
    }
}
"#;

pub mod settings {
    pub const DT: usize = 0;
    pub const CFL: usize = 1;
    pub const CELL_AREA: usize = 2;
    pub const LEN: usize = 4;
}

pub struct ShallowWater {
    stream: Stream,
    advect: Kernel,
    h: DeviceBuffer<f32>,
    h_next: DeviceBuffer<f32>,
    u: DeviceBuffer<f32>,
    v: DeviceBuffer<f32>,
    pub settings: ManagedBuffer<f32>,
    nx: usize,
    ny: usize,
    dx: f32,
}

impl ShallowWater {
    pub fn new(ctx: &Context, nx: usize, ny: usize, dx: f32) -> Result<Self> {
        let module = ctx.load_cuda(SWE_SRC)?;
        let mut settings = ctx.alloc_managed::<f32>(settings::LEN)?;
        settings[settings::DT] = 0.01;
        settings[settings::CFL] = 0.5;
        settings[settings::CELL_AREA] = dx * dx;
        let n = nx * ny;
        Ok(Self {
            stream: ctx.new_stream()?,
            advect: module.function("advect")?,
            h: ctx.alloc_zeroed(n)?,
            h_next: ctx.alloc_zeroed(n)?,
            u: ctx.alloc_zeroed(n)?,
            v: ctx.alloc_zeroed(n)?,
            settings,
            nx,
            ny,
            dx,
        })
    }

    /// One explicit step; `max_speed` comes from the previous step's reduction.
    pub fn step(&mut self, max_speed: f32) -> Result<()> {
        let dt = self.settings[settings::DT];
        let cfg = LaunchConfig {
            grid: ((self.nx as u32).div_ceil(16), (self.ny as u32).div_ceil(16), 1),
            block: (16, 16, 1),
            shared_mem_bytes: 0,
        };
        let (nx, ny, dx) = (self.nx as i32, self.ny as i32, self.dx);
        unsafe {
            self.stream.launch(&self.advect, cfg, &[&self.h, &self.u, &self.v, &self.h_next, &nx, &ny, &dt, &dx])?;
        }
        // CFL-limited dt for the next step, computed while the GPU works.
        let cfl = self.settings[settings::CFL]; // EXPECT: managed_concurrent_access
        let next_dt = if max_speed > 0.0 { cfl * self.dx / max_speed } else { dt };
        self.settings[settings::DT] = next_dt.min(0.05);
        self.stream.copy_dtod_async(&mut self.h, &self.h_next)?;
        self.stream.synchronize()?;
        Ok(())
    }
}
