//! case: LiDAR point-cloud voxelizer with cudarc; the optional debug dump builds a host slice straight from the occupancy CudaSlice's raw device pointer (after synchronizing, which does not make a device address host-readable)
//! expect: host_deref_device_ptr=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const VOXEL_SRC: &str = r#"
extern "C" __global__ void voxelize(const float* xyz, unsigned* occ, unsigned n, float cell, unsigned dim) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int vx = (int)(xyz[3*i] / cell), vy = (int)(xyz[3*i+1] / cell), vz = (int)(xyz[3*i+2] / cell);
    if (vx < 0 || vy < 0 || vz < 0 || vx >= dim || vy >= dim || vz >= dim) return;
    atomicAdd(&occ[(vz * dim + vy) * dim + vx], 1u);
}
"#;

#[derive(Clone, Copy, Debug)]
pub struct VoxelGrid {
    pub dim: u32,
    pub cell: f32,
}

pub enum DebugLevel {
    Off,
    Summary,
    DumpOccupancy { max_cells: usize },
}

pub struct Voxelizer {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    grid: VoxelGrid,
    staging: PinnedHostSlice<f32>,
}

impl Voxelizer {
    pub fn new(ctx: &Arc<CudaContext>, grid: VoxelGrid, max_points: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let kernel = ctx.load_module(compile_ptx(VOXEL_SRC)?)?.load_function("voxelize")?;
        let staging = unsafe { ctx.alloc_pinned_with_flags::<f32>(max_points * 3, 0)? };
        Ok(Self { stream: ctx.new_stream()?, kernel, grid, staging })
    }

    pub fn voxelize(&mut self, points: &[[f32; 3]], debug: DebugLevel) -> Result<CudaSlice<u32>, Box<dyn std::error::Error>> {
        let flat = self.staging.as_mut_slice()?;
        for (dst, p) in flat.chunks_exact_mut(3).zip(points) {
            dst.copy_from_slice(p);
        }
        let n = points.len() as u32;
        let mut xyz = self.stream.alloc_zeros::<f32>(self.staging.len())?;
        self.stream.memcpy_htod(&self.staging, &mut xyz)?;
        let cells = (self.grid.dim as usize).pow(3);
        let mut occ = self.stream.alloc_zeros::<u32>(cells)?;
        unsafe {
            self.stream
                .launch_builder(&self.kernel)
                .arg(&xyz)
                .arg(&mut occ)
                .arg(&n)
                .arg(&self.grid.cell)
                .arg(&self.grid.dim)
                .launch(LaunchConfig::for_num_elems(n))?;
        }

        match debug {
            DebugLevel::Off => {}
            DebugLevel::Summary => println!("voxelized {n} points into {cells} cells"),
            DebugLevel::DumpOccupancy { max_cells } => {
                self.stream.synchronize()?;
                let (ptr, _guard) = occ.device_ptr(&self.stream);
                let view = unsafe { std::slice::from_raw_parts(ptr as *const u32, cells.min(max_cells)) }; // EXPECT: host_deref_device_ptr
                let busy = view.iter().filter(|&&c| c > 0).count();
                println!("first {} cells: {busy} occupied", view.len());
            }
        }
        Ok(occ)
    }
}
