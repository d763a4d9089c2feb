//! case: ligand-docking screen scores poses into a cudarc `UnifiedSlice` on the context's default stream (no other stream, so cudarc records no events); the host ranks the scores through `as_slice` right after the launch, which waits for nothing
//! expect: missing_sync=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const SCORE_SRC: &str = r#"
extern "C" __global__ void vina_like(const float* lig_xyz, const float* receptor_grid, float* scores,
                                     int poses, int atoms, int grid_n, float spacing) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= poses) return;
    float e = 0.0f;
    for (int a = 0; a < atoms; ++a) {
        const float* r = lig_xyz + 3 * (p * atoms + a);
        int gx = min(max((int)(r[0] / spacing), 0), grid_n - 1);
        int gy = min(max((int)(r[1] / spacing), 0), grid_n - 1);
        int gz = min(max((int)(r[2] / spacing), 0), grid_n - 1);
        e += receptor_grid[(gz * grid_n + gy) * grid_n + gx];
    }
    scores[p] = e;
}
"#;

pub struct DockingScreen {
    stream: Arc<CudaStream>,
    score: CudaFunction,
    receptor: CudaSlice<f32>,
    grid_n: i32,
    spacing: f32,
}

impl DockingScreen {
    pub fn new(ctx: &Arc<CudaContext>, receptor: CudaSlice<f32>, grid_n: i32, spacing: f32) -> Result<Self, Box<dyn std::error::Error>> {
        Ok(Self {
            stream: ctx.default_stream(),
            score: ctx.load_module(compile_ptx(SCORE_SRC)?)?.load_function("vina_like")?,
            receptor,
            grid_n,
            spacing,
        })
    }

    /// Returns the indices of the `k` best (lowest-energy) poses.
    pub fn top_k(&self, poses: &CudaSlice<f32>, n_poses: usize, atoms: usize, k: usize) -> Result<Vec<(usize, f32)>, DriverError> {
        let ctx = self.stream.context();
        let mut scores: UnifiedSlice<f32> = unsafe { ctx.alloc_unified(n_poses, true)? };
        let (np, na) = (n_poses as i32, atoms as i32);
        unsafe {
            self.stream
                .launch_builder(&self.score)
                .arg(poses)
                .arg(&self.receptor)
                .arg(&mut scores)
                .arg(&np)
                .arg(&na)
                .arg(&self.grid_n)
                .arg(&self.spacing)
                .launch(LaunchConfig::for_num_elems(n_poses as u32))?;
        }
        let mut ranked: Vec<(usize, f32)> = scores.as_slice()?.iter().copied().enumerate().collect(); // EXPECT: missing_sync
        ranked.sort_by(|a, b| a.1.total_cmp(&b.1));
        ranked.truncate(k);
        Ok(ranked)
    }
}
