//! case: limited-area weather model with a managed boundary-condition table (runtime layer); the advection kernel, which does not use the table, runs on the physics stream, and the host rewrites the table only after physics.synchronize(), before the boundary kernel that reads it is launched (near-miss for managed_concurrent_access)
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const WX_SRC: &str = r#"
extern "C" __global__ void advect(float* q, const float* u, const float* v, int nx, int ny, float dt) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x <= 0 || y <= 0 || x >= nx - 1 || y >= ny - 1) return;
    int i = y * nx + x;
    q[i] -= dt * (u[i] * (q[i + 1] - q[i - 1]) + v[i] * (q[i + nx] - q[i - nx])) * 0.5f;
}
extern "C" __global__ void apply_boundary(float* q, const float* table, int nx, int ny) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= 2 * (nx + ny)) return;
    int i = k < nx ? k : k < 2 * nx ? (ny - 1) * nx + (k - nx) : k < 2 * nx + ny ? (k - 2 * nx) * nx : (k - 2 * nx - ny) * nx + nx - 1;
    q[i] = table[k];
}
"#;

pub trait BoundaryProvider {
    /// Boundary values at `hour` for the 2*(nx+ny) perimeter points.
    fn values_at(&self, hour: f32, out: &mut [f32]);
}

pub struct Model {
    nx: usize,
    ny: usize,
    physics: Stream,
    advect: Kernel,
    boundary: Kernel,
    q: DeviceBuffer<f32>,
    u: DeviceBuffer<f32>,
    v: DeviceBuffer<f32>,
    table: ManagedBuffer<f32>,
}

impl Model {
    pub fn new(ctx: &Context, nx: usize, ny: usize) -> Result<Self> {
        let m = ctx.load_cuda(WX_SRC)?;
        Ok(Self {
            nx,
            ny,
            physics: ctx.new_stream()?,
            advect: m.function("advect")?,
            boundary: m.function("apply_boundary")?,
            q: ctx.alloc_zeroed(nx * ny)?,
            u: ctx.alloc_zeroed(nx * ny)?,
            v: ctx.alloc_zeroed(nx * ny)?,
            table: ctx.alloc_managed(2 * (nx + ny))?,
        })
    }

    pub fn run<B: BoundaryProvider>(&mut self, bc: &B, hours: f32, dt: f32) -> Result<()> {
        let (nx, ny) = (self.nx as i32, self.ny as i32);
        let cfg = LaunchConfig { grid: ((nx as u32).div_ceil(128), ny as u32, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
        let perimeter = LaunchConfig::for_num_elems(2 * (nx + ny) as u32);
        let mut t = 0.0f32;
        while t < hours * 3600.0 {
            unsafe { self.physics.launch(&self.advect, cfg, &[&self.q, &self.u, &self.v, &nx, &ny, &dt])? };
            self.physics.synchronize()?;
            bc.values_at(t / 3600.0, &mut self.table);
            unsafe { self.physics.launch(&self.boundary, perimeter, &[&self.q, &self.table, &nx, &ny])? };
            self.physics.synchronize()?;
            t += dt;
        }
        Ok(())
    }
}
