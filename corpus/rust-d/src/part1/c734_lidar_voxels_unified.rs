//! case: a LiDAR voxelizer writes an occupancy grid in cudarc unified memory with a kernel that takes the grid as an argument (cudarc waits on and records the grid's event for every launch, whatever the stream count); the host then reads the grid through `as_slice`, which waits on that event, and no other kernel is running
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DeviceRepr, DriverError, LaunchConfig, PushKernelArg, UnifiedSlice, ValidAsZeroBits};
use cudarc::nvrtc::compile_ptx;

const VOXEL_CU: &str = r#"
extern "C" __global__ void voxelize(const float4* points, int n, float cell, int dim, unsigned char* occ) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = (int)(points[i].x / cell) + dim / 2;
    int y = (int)(points[i].y / cell) + dim / 2;
    int z = (int)(points[i].z / cell);
    if (x < 0 || y < 0 || z < 0 || x >= dim || y >= dim || z >= dim) return;
    occ[(z * dim + y) * dim + x] = 1;
}
"#;

/// Counts the cells of a grid that satisfy `pred`.
pub fn count_cells<T: DeviceRepr + ValidAsZeroBits + Copy>(grid: &UnifiedSlice<T>, pred: impl Fn(T) -> bool) -> Result<usize, DriverError> {
    Ok(grid.as_slice()?.iter().filter(|&&c| pred(c)).count())
}

pub struct Voxelizer {
    stream: Arc<CudaStream>,
    voxelize: CudaFunction,
    grid: UnifiedSlice<u8>,
    dim: i32,
    cell: f32,
}

impl Voxelizer {
    pub fn new(ctx: &Arc<CudaContext>, dim: i32, cell: f32) -> Result<Self, Box<dyn std::error::Error>> {
        let voxelize = ctx.load_module(compile_ptx(VOXEL_CU)?)?.load_function("voxelize")?;
        let grid = unsafe { ctx.alloc_unified::<u8>((dim * dim * dim) as usize, true)? };
        Ok(Self { stream: ctx.default_stream(), voxelize, grid, dim, cell })
    }

    pub fn occupied(&mut self, points: &CudaSlice<f32>) -> Result<usize, DriverError> {
        self.grid.as_mut_slice()?.fill(0);
        let n = (points.len() / 4) as i32;
        unsafe {
            self.stream
                .launch_builder(&self.voxelize)
                .arg(points)
                .arg(&n)
                .arg(&self.cell)
                .arg(&self.dim)
                .arg(&mut self.grid)
                .launch(LaunchConfig::for_num_elems(n as u32))?;
        }
        count_cells(&self.grid, |c| c != 0)
    }
}
