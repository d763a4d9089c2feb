//! case: 2-D heat-diffusion relaxation; interior sweep and residual reduction into managed memory on one stream, halo packing on another; the host waits for every stream before it reads the managed residual and writes the managed control block
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const HEAT_SRC: &str = r#"
extern "C" __global__ void relax(const float* t_old, float* t_new, const float* ctrl, float* residual, int nx, int ny) {
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float d = 0.0f;
    int x = i % nx, y = i / nx;
    if (i < nx * ny && x > 0 && y > 0 && x < nx - 1 && y < ny - 1) {
        float v = 0.25f * (t_old[i - 1] + t_old[i + 1] + t_old[i - nx] + t_old[i + nx]);
        v = ctrl[0] * v + (1.0f - ctrl[0]) * t_old[i];
        d = fabsf(v - t_old[i]);
        t_new[i] = v;
    }
    s[threadIdx.x] = d;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + k]);
        __syncthreads();
    }
    if (threadIdx.x == 0) residual[blockIdx.x] = s[0];
}
extern "C" __global__ void pack_halo(const float* t, float* north, float* south, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= nx) return;
    north[x] = t[nx + x];
    south[x] = t[(ny - 2) * nx + x];
}
"#;

pub struct HeatSolver {
    ctx: Context,
    streams: Vec<Stream>,
    relax: Kernel,
    pack: Kernel,
    grids: [DeviceBuffer<f32>; 2],
    north: DeviceBuffer<f32>,
    south: DeviceBuffer<f32>,
    residual: ManagedBuffer<f32>,
    control: ManagedBuffer<f32>,
    nx: usize,
    ny: usize,
    current: usize,
}

impl HeatSolver {
    pub fn new(nx: usize, ny: usize, omega: f32) -> Result<Self> {
        let ctx = Context::new(0)?;
        let module = ctx.load_cuda(HEAT_SRC)?;
        let streams = (0..2).map(|_| ctx.new_stream()).collect::<Result<Vec<_>>>()?;
        let blocks = (nx * ny).div_ceil(256);
        let mut control = ctx.alloc_managed::<f32>(1)?;
        control[0] = omega; // nothing runs yet
        Ok(HeatSolver {
            relax: module.function("relax")?,
            pack: module.function("pack_halo")?,
            grids: [ctx.alloc_zeroed(nx * ny)?, ctx.alloc_zeroed(nx * ny)?],
            north: ctx.alloc_zeroed(nx)?,
            south: ctx.alloc_zeroed(nx)?,
            residual: ctx.alloc_managed(blocks)?,
            control,
            streams,
            ctx,
            nx,
            ny,
            current: 0,
        })
    }

    /// One sweep; returns the largest update, and relaxes less aggressively if it grew.
    pub fn sweep(&mut self, previous: f32) -> Result<f32> {
        let (nx, ny) = (self.nx as i32, self.ny as i32);
        let (src, dst) = (self.current, 1 - self.current);
        let [a, b] = &self.grids;
        let (old, new) = if src == 0 { (a, b) } else { (b, a) };
        unsafe {
            self.streams[0].launch(
                &self.relax,
                LaunchConfig::for_num_elems((self.nx * self.ny) as u32),
                &[old, new, &self.control, &self.residual, &nx, &ny],
            )?;
            self.streams[1].launch(&self.pack, LaunchConfig::for_num_elems(self.nx as u32), &[old, &self.north, &self.south, &nx, &ny])?;
        }
        for s in &self.streams {
            s.synchronize()?;
        }
        let worst = self.residual.iter().copied().fold(0.0f32, f32::max);
        if worst > previous {
            self.control[0] *= 0.9;
        }
        self.current = dst;
        Ok(worst)
    }
}
