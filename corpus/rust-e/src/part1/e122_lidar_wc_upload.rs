//! case: LiDAR voxelizer streams point-cloud sweeps through an `alloc_pinned` (write-combined) staging buffer that the host only writes; one stream, so the loop synchronizes before refilling the staging, and the 64-bin height histogram comes back into a small stack array
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const VOXEL_SRC: &str = r#"
extern "C" __global__ void voxelize(const float4* pts, int n, float voxel, int grid,
                                    unsigned int* occupancy, unsigned int* height_hist) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pts[i];
    int x = (int)(p.x / voxel) + grid / 2, y = (int)(p.y / voxel) + grid / 2;
    if (x < 0 || y < 0 || x >= grid || y >= grid) return;
    atomicOr(&occupancy[(y * grid + x) / 32], 1u << ((y * grid + x) % 32));
    int bin = min(max((int)((p.z + 3.0f) * 8.0f), 0), 63);
    atomicAdd(&height_hist[bin], 1u);
}
"#;

#[derive(Clone, Copy)]
pub struct Point {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub intensity: f32,
}

pub struct Voxelizer {
    stream: Arc<CudaStream>,
    func: CudaFunction,
    staging: PinnedHostSlice<f32>,
    points: CudaSlice<f32>,
    occupancy: CudaSlice<u32>,
    hist: CudaSlice<u32>,
    grid: i32,
    voxel: f32,
}

impl Voxelizer {
    pub fn new(max_points: usize, grid: i32, voxel: f32) -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.default_stream();
        let func = ctx.load_module(compile_ptx(VOXEL_SRC)?)?.load_function("voxelize")?;
        // write-only staging: write-combining makes the host writes and the upload faster
        let staging = unsafe { ctx.alloc_pinned::<f32>(4 * max_points)? };
        let points = stream.alloc_zeros::<f32>(4 * max_points)?;
        let occupancy = stream.alloc_zeros::<u32>(((grid * grid) as usize).div_ceil(32))?;
        let hist = stream.alloc_zeros::<u32>(64)?;
        Ok(Voxelizer { stream, func, staging, points, occupancy, hist, grid, voxel })
    }

    /// Voxelizes consecutive sweeps; returns the height histogram of all of them.
    pub fn run<'a>(&mut self, sweeps: impl Iterator<Item = &'a [Point]>) -> Result<[u32; 64], DriverError> {
        self.stream.memset_zeros(&mut self.occupancy)?;
        self.stream.memset_zeros(&mut self.hist)?;
        let cap = self.staging.len() / 4;
        for sweep in sweeps {
            let n = sweep.len().min(cap);
            let dst = self.staging.as_mut_slice()?;
            for (d, p) in dst.chunks_exact_mut(4).zip(&sweep[..n]) {
                d[0] = p.x;
                d[1] = p.y;
                d[2] = p.z;
                d[3] = p.intensity;
            }
            self.stream.memcpy_htod(&self.staging, &mut self.points)?;
            let n_i = n as i32;
            let mut launch = self.stream.launch_builder(&self.func);
            launch.arg(&self.points).arg(&n_i).arg(&self.voxel).arg(&self.grid).arg(&mut self.occupancy).arg(&mut self.hist);
            unsafe { launch.launch(LaunchConfig::for_num_elems(n as u32)) }?;
            // the next sweep overwrites the staging buffer the copy reads
            self.stream.synchronize()?;
        }
        let mut hist = [0u32; 64];
        self.stream.memcpy_dtoh(&self.hist, &mut hist)?;
        Ok(hist)
    }
}
