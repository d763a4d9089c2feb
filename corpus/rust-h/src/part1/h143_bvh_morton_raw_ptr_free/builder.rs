use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use super::kernels::BVH_SRC;

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;

#[derive(Debug, Clone, Copy)]
pub struct BvhNode {
    pub morton: u32,
    pub split: f32,
}

pub struct BvhBuilder {
    ctx: Arc<CudaContext>,
    /// Allocations and frees are issued here so the build stream never stalls on the pool.
    alloc_stream: Arc<CudaStream>,
    build_stream: Arc<CudaStream>,
    kernel: CudaFunction,
    morton: Option<CudaSlice<u32>>,
}

impl BvhBuilder {
    pub fn new(ctx: &Arc<CudaContext>) -> BoxResult<Self> {
        Ok(Self {
            ctx: ctx.clone(),
            alloc_stream: ctx.new_stream()?,
            build_stream: ctx.new_stream()?,
            kernel: ctx.load_module(compile_ptx(BVH_SRC)?)?.load_function("morton_and_leaves")?,
            morton: None,
        })
    }

    fn scratch(&mut self, n: usize) -> BoxResult<&CudaSlice<u32>> {
        if self.morton.as_ref().map_or(true, |m| m.len() < n) {
            self.morton = Some(self.alloc_stream.alloc_zeros::<u32>(n)?);
        }
        Ok(self.morton.as_ref().expect("allocated above"))
    }

    pub fn build(&mut self, centroids: &[f32]) -> BoxResult<Vec<BvhNode>> {
        let n = centroids.len() / 3;
        let mut h_centroids = unsafe { self.ctx.alloc_pinned_with_flags::<f32>(centroids.len(), 0)? };
        h_centroids.as_mut_slice()?.copy_from_slice(centroids);
        let d_centroids = self.build_stream.clone_htod(&h_centroids)?;
        let mut d_leaves = self.build_stream.alloc_zeros::<f32>(2 * n)?;

        let build_stream = self.build_stream.clone();
        let codes_ptr = self.scratch(n)?.device_ptr(&build_stream).0;
        let n_i = n as i32;
        let mut launch = build_stream.launch_builder(&self.kernel);
        launch.arg(&d_centroids).arg(&codes_ptr).arg(&mut d_leaves).arg(&n_i);
        unsafe { launch.launch(LaunchConfig::for_num_elems(n as u32)) }?;

        // The codes are folded into the leaves: release the scratch right away.
        drop(self.morton.take()); // EXPECT: missing_sync

        let mut h_leaves = unsafe { self.ctx.alloc_pinned_with_flags::<f32>(2 * n, 0)? };
        self.build_stream.memcpy_dtoh(&d_leaves, &mut h_leaves)?;
        self.build_stream.synchronize()?;
        let nodes = h_leaves.as_slice()?.chunks_exact(2).map(|c| BvhNode { morton: c[0].to_bits(), split: c[1] }).collect();
        Ok(nodes)
    }
}
