//! Request scorer for a linear ranking model, replayed as a raw executable graph.
//!
//! Each request's feature rows are written into a pinned staging buffer; the
//! graph copies them to the device, scores them and copies the scores back into
//! pinned memory. After warm-up the server re-pins its staging buffer as
//! portable memory, so that the worker threads of other devices can fill it too.

use std::error::Error;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::{
    result, sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut,
    LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

type Res<T> = Result<T, Box<dyn Error>>;

const SCORE_SRC: &str = r#"
extern "C" __global__ void score_rows(const float* feat, const float* w, float bias,
                                      float* score, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float z = bias;
    for (int c = 0; c < cols; ++c) z += feat[r * cols + c] * w[c];
    score[r] = 1.0f / (1.0f + expf(-z));
}
"#;

/// Owns a captured graph and its executable form.
struct ExecGraph {
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
}

impl Drop for ExecGraph {
    fn drop(&mut self) {
        unsafe {
            let _ = result::graph::exec_destroy(self.exec);
            let _ = result::graph::destroy(self.graph);
        }
    }
}

pub struct ScoringServer {
    exec: Option<ExecGraph>,
    stream: Arc<CudaStream>,
    score: CudaFunction,
    rows: usize,
    cols: usize,
    bias: f32,
    weights: CudaSlice<f32>,
    d_feat: CudaSlice<f32>,
    d_score: CudaSlice<f32>,
    staging: PinnedHostSlice<f32>,
    scores_host: PinnedHostSlice<f32>,
}

impl ScoringServer {
    pub fn new(ctx: &Arc<CudaContext>, weights: &[f32], bias: f32, rows: usize) -> Res<Self> {
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream()?;
        let score = ctx
            .load_module(compile_ptx(SCORE_SRC)?)?
            .load_function("score_rows")?;
        let cols = weights.len();
        let mut server = Self {
            exec: None,
            score,
            rows,
            cols,
            bias,
            weights: stream.alloc_zeros::<f32>(cols)?,
            d_feat: stream.alloc_zeros::<f32>(rows * cols)?,
            d_score: stream.alloc_zeros::<f32>(rows)?,
            staging: unsafe { ctx.alloc_pinned_with_flags::<f32>(rows * cols, 0)? },
            scores_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(rows, 0)? },
            stream,
        };
        {
            let mut w_host = unsafe { ctx.alloc_pinned_with_flags::<f32>(cols, 0)? };
            w_host.as_mut_slice()?.copy_from_slice(weights);
            server.stream.memcpy_htod(&w_host, &mut server.weights)?;
            server.stream.synchronize()?;
        }
        server.record()?;
        Ok(server)
    }

    /// Records upload, scoring and download of one full batch of rows.
    fn record(&mut self) -> Res<()> {
        let cu = self.stream.cu_stream();
        let feat_bytes = self.rows * self.cols * std::mem::size_of::<f32>();
        let score_bytes = self.rows * std::mem::size_of::<f32>();
        let src = self.staging.as_ptr()?;
        let dst = self.scores_host.as_mut_ptr()?;
        let feat = self.d_feat.device_ptr_mut(&self.stream).0;
        let out = self.d_score.device_ptr(&self.stream).0;
        let rows = self.rows as i32;
        let cols = self.cols as i32;

        unsafe {
            result::stream::begin_capture(cu, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
            sys::cuMemcpyHtoDAsync_v2(feat, src.cast(), feat_bytes, cu).result()?;
            self.stream
                .launch_builder(&self.score)
                .arg(&self.d_feat)
                .arg(&self.weights)
                .arg(&self.bias)
                .arg(&mut self.d_score)
                .arg(&rows)
                .arg(&cols)
                .launch(LaunchConfig::for_num_elems(self.rows as u32))?;
            sys::cuMemcpyDtoHAsync_v2(dst.cast(), out, score_bytes, cu).result()?;
            let graph = result::stream::end_capture(cu)?;
            let exec = match result::graph::instantiate(graph, sys::CUgraphInstantiate_flags(0)) {
                Ok(exec) => exec,
                Err(e) => {
                    let _ = result::graph::destroy(graph);
                    return Err(e.into());
                }
            };
            self.exec = Some(ExecGraph { graph, exec });
        }
        Ok(())
    }

    /// Re-pins the staging buffer as portable memory (same size, same layout).
    pub fn repin_staging_portable(&mut self) -> Res<()> {
        let ctx = self.stream.context().clone();
        let portable = unsafe {
            ctx.alloc_pinned_with_flags::<f32>(self.rows * self.cols, sys::CU_MEMHOSTALLOC_PORTABLE)?
        };
        // The last replay read the old buffer; let it finish before the buffer goes.
        self.stream.synchronize()?;
        self.staging = portable;
        Ok(())
    }

    /// Scores up to `rows` feature rows (row-major, `cols` each).
    pub fn score(&mut self, request: &[f32]) -> Res<Vec<f32>> {
        let n = request.len() / self.cols;
        if n > self.rows || request.len() % self.cols != 0 {
            return Err("request does not fit the recorded batch".into());
        }
        let slots = self.staging.as_mut_slice()?;
        slots[..request.len()].copy_from_slice(request);
        slots[request.len()..].fill(0.0);
        let exec = self.exec.as_ref().ok_or("scoring graph not recorded")?;
        unsafe { result::graph::launch(exec.exec, self.stream.cu_stream())? }; // EXPECT: graph_uses_freed_memory
        self.stream.synchronize()?;
        Ok(self.scores_host.as_slice()?[..n].to_vec())
    }
}

impl Drop for ScoringServer {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        self.exec = None;
    }
}

pub fn serve_with_portable_staging(
    weights: &[f32],
    warmup: &[Vec<f32>],
    traffic: &[Vec<f32>],
) -> Res<Vec<Vec<f32>>> {
    let ctx = CudaContext::new(0)?;
    let mut server = ScoringServer::new(&ctx, weights, -0.25, 256)?;
    for request in warmup {
        server.score(request)?;
    }
    server.repin_staging_portable()?;
    let mut answers = Vec::with_capacity(traffic.len());
    for request in traffic {
        answers.push(server.score(request)?);
    }
    Ok(answers)
}
