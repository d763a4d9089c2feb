//! case: virtual-screening pass on cudarc's safe API scoring ligand poses with an NVRTC kernel; scores are copied into a PinnedHostSlice from CudaContext::alloc_pinned (write-combined in cudarc 0.19.10), the stream is synchronized, and the host then ranks the poses by reading that buffer
//! expect: write_combined_host_read=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const SCORE_SRC: &str = r#"
// Simplified Vina-like pair term: gauss attraction + repulsion between ligand atoms of a pose
// and receptor grid probes.
extern "C" __global__ void score_poses(const float4* ligand_atoms, unsigned atoms_per_pose,
                                       const float4* receptor, unsigned nrec, unsigned poses,
                                       float* scores) {
    unsigned pose = blockIdx.x * blockDim.x + threadIdx.x;
    if (pose >= poses) return;
    float e = 0.f;
    for (unsigned a = 0; a < atoms_per_pose; ++a) {
        float4 l = ligand_atoms[pose * atoms_per_pose + a];
        for (unsigned r = 0; r < nrec; ++r) {
            float4 p = receptor[r];
            float dx = l.x - p.x, dy = l.y - p.y, dz = l.z - p.z;
            float d = sqrtf(dx*dx + dy*dy + dz*dz) - (l.w + p.w);
            e += -0.0356f * __expf(-(d * 2.f) * (d * 2.f)) + (d < 0.f ? 0.84f * d * d : 0.f);
        }
    }
    scores[pose] = e;
}
"#;

pub struct Screen {
    stream: Arc<CudaStream>,
    score: CudaFunction,
    receptor: CudaSlice<f32>,
    nrec: u32,
    scores_host: PinnedHostSlice<f32>,
}

impl Screen {
    pub fn new(receptor_xyzr: &PinnedHostSlice<f32>, max_poses: usize) -> Result<Self> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.default_stream();
        let module = ctx.load_module(cudarc::nvrtc::compile_ptx(SCORE_SRC)?)?;
        let score = module.load_function("score_poses")?;
        let receptor = stream.clone_htod(receptor_xyzr)?;
        let nrec = (receptor_xyzr.len() / 4) as u32;
        let scores_host = unsafe { ctx.alloc_pinned::<f32>(max_poses)? };
        Ok(Self { stream, score, receptor, nrec, scores_host })
    }

    /// Best `k` (pose index, energy) pairs, lowest energy first.
    pub fn top_k(&mut self, ligand: &CudaSlice<f32>, atoms_per_pose: u32, poses: u32, k: usize) -> Result<Vec<(usize, f32)>> {
        let mut d_scores = self.stream.alloc_zeros::<f32>(poses as usize)?;
        let mut launch = self.stream.launch_builder(&self.score);
        launch.arg(ligand).arg(&atoms_per_pose).arg(&self.receptor).arg(&self.nrec).arg(&poses).arg(&mut d_scores);
        unsafe { launch.launch(LaunchConfig::for_num_elems(poses))? };
        self.stream.memcpy_dtoh(&d_scores, &mut self.scores_host)?;
        self.stream.synchronize()?;

        let scores = &self.scores_host.as_slice()?[..poses as usize];
        let mut ranked: Vec<(usize, f32)> = scores.iter().copied().enumerate().collect(); // EXPECT: write_combined_host_read
        ranked.sort_by(|a, b| a.1.total_cmp(&b.1));
        ranked.truncate(k);
        Ok(ranked)
    }
}
