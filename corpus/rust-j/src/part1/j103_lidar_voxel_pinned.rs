//! case: lidar voxelizer copies each sweep (a pageable Vec from the sensor driver) host-to-host into a page-locked staging buffer, uploads from the staging buffer and reads the occupancy readback after `synchronize`; the async copies only ever see pinned memory
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, Module, PinnedBuffer, Result, Stream};

const VOXEL_SRC: &str = r#"
extern "C" __global__ void voxelize(const float* xyz, int n, unsigned int* grid, int dim, float cell) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int vx = (int)floorf(xyz[3 * i + 0] / cell) + dim / 2;
    int vy = (int)floorf(xyz[3 * i + 1] / cell) + dim / 2;
    int vz = (int)floorf(xyz[3 * i + 2] / cell) + dim / 2;
    if (vx < 0 || vy < 0 || vz < 0 || vx >= dim || vy >= dim || vz >= dim) return;
    atomicAdd(&grid[(vz * dim + vy) * dim + vx], 1u);
}
"#;

pub struct Sweep {
    pub stamp_ns: u64,
    pub xyz: Vec<f32>,
}

pub struct Voxelizer {
    stream: Stream,
    module: Module,
    staging: PinnedBuffer<f32>,
    d_points: DeviceBuffer<f32>,
    d_grid: DeviceBuffer<u32>,
    h_grid: PinnedBuffer<u32>,
    dim: usize,
    cell: f32,
}

impl Voxelizer {
    pub fn new(ctx: &Context, max_points: usize, dim: usize, cell: f32) -> Result<Self> {
        let cells = dim * dim * dim;
        Ok(Self {
            stream: ctx.new_stream()?,
            module: ctx.load_cuda(VOXEL_SRC)?,
            staging: ctx.alloc_pinned::<f32>(3 * max_points)?,
            d_points: ctx.alloc::<f32>(3 * max_points)?,
            d_grid: ctx.alloc_zeroed::<u32>(cells)?,
            h_grid: ctx.alloc_pinned::<u32>(cells)?,
            dim,
            cell,
        })
    }

    /// Returns the number of occupied voxels in the sweep.
    pub fn process(&mut self, sweep: &Sweep) -> Result<usize> {
        let n = (sweep.xyz.len() / 3).min(self.staging.len() / 3);
        // Host-to-host: the sensor's Vec never reaches the DMA engine.
        self.staging[..3 * n].copy_from_slice(&sweep.xyz[..3 * n]);

        self.stream.memset_d32_async(&mut self.d_grid, 0)?;
        unsafe { self.stream.copy_htod_async(&mut self.d_points, &self.staging)? };
        let kernel = self.module.function("voxelize")?;
        let (n_i, dim_i, cell) = (n as i32, self.dim as i32, self.cell);
        unsafe {
            self.stream.launch(
                &kernel,
                LaunchConfig::for_num_elems(n as u32),
                &[&self.d_points, &n_i, &self.d_grid, &dim_i, &cell],
            )?;
            self.stream.copy_dtoh_async(&mut self.h_grid, &self.d_grid)?;
        }
        self.stream.synchronize()?;
        Ok(self.h_grid.iter().filter(|&&c| c > 0).count())
    }
}

pub fn drain(ctx: &Context, rx: std::sync::mpsc::Receiver<Sweep>) -> Result<Vec<(u64, usize)>> {
    let mut vox = Voxelizer::new(ctx, 131_072, 128, 0.2)?;
    let mut out = Vec::new();
    for sweep in rx {
        let occupied = vox.process(&sweep)?;
        out.push((sweep.stamp_ns, occupied));
    }
    Ok(out)
}
