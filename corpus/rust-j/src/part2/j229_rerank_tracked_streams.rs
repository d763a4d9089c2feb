//! case: near-miss. Reranker on two cudarc streams with event tracking left on (the default): `memcpy_dtoh` into a `PinnedHostSlice` (flags 0) records the slice's event, and `as_slice` synchronizes on it, so reading the scores right after the copy call is complete
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SCORE_SRC: &str = r#"
extern "C" __global__ void bm25_boost(const float* dense, const float* sparse, float* fused, float alpha, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) fused[i] = alpha * dense[i] + (1.0f - alpha) * sparse[i];
}
"#;

pub struct FusionRanker {
    compute: Arc<CudaStream>,
    readback: Arc<CudaStream>,
    kernel: CudaFunction,
    fused: CudaSlice<f32>,
    fused_host: PinnedHostSlice<f32>,
    alpha: f32,
}

impl FusionRanker {
    pub fn new(ctx: &Arc<CudaContext>, max_docs: usize, alpha: f32) -> Result<Self, Box<dyn std::error::Error>> {
        assert!(ctx.is_event_tracking(), "fusion ranker relies on cudarc's stream tracking");
        let compute = ctx.new_stream()?;
        let readback = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(SCORE_SRC)?)?.load_function("bm25_boost")?;
        Ok(Self {
            fused: compute.alloc_zeros::<f32>(max_docs)?,
            fused_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(max_docs, 0)? },
            compute,
            readback,
            kernel,
            alpha,
        })
    }

    pub fn fuse(&mut self, dense: &CudaSlice<f32>, sparse: &CudaSlice<f32>, doc_ids: &[u64]) -> Result<Vec<(u64, f32)>, DriverError> {
        let n = doc_ids.len() as u32;
        let alpha = self.alpha;
        unsafe { self.compute.launch_builder(&self.kernel).arg(dense).arg(sparse).arg(&mut self.fused).arg(&alpha).arg(&n).launch(LaunchConfig::for_num_elems(n)) }?;
        // `fused`'s write event makes the readback stream wait for the kernel; the copy records
        // the pinned slice's event, which `as_slice` waits on.
        self.readback.memcpy_dtoh(&self.fused, &mut self.fused_host)?;
        let mut ranked: Vec<(u64, f32)> = doc_ids.iter().copied().zip(self.fused_host.as_slice()?.iter().copied()).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        Ok(ranked)
    }
}
