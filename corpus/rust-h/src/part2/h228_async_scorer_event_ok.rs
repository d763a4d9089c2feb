//! case: async scoring endpoint; features go up from non-write-combined pinned memory, and after the readback the handler awaits a future that polls an event recorded behind the copy (`is_complete`) until it reports done, so the pinned scores are read only once the copy has finished
//! expect: none

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use cudarc::driver::{CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SCORE_SRC: &str = r#"
extern "C" __global__ void logistic_score(const float* x, const float* w, float* out, unsigned rows, unsigned dim) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float z = 0.0f;
    for (unsigned k = 0; k < dim; ++k) z += x[r * dim + k] * w[k];
    out[r] = 1.0f / (1.0f + __expf(-z));
}
"#;

/// Resolves once every operation recorded before `event` has completed.
struct EventDone<'a> {
    event: &'a CudaEvent,
}

impl Future for EventDone<'_> {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        if self.event.is_complete() {
            Poll::Ready(())
        } else {
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

pub struct AsyncScorer {
    stream: Arc<CudaStream>,
    score: CudaFunction,
    weights: CudaSlice<f32>,
    x_host: PinnedHostSlice<f32>,
    x_dev: CudaSlice<f32>,
    out_dev: CudaSlice<f32>,
    out_host: PinnedHostSlice<f32>,
    dim: usize,
}

impl AsyncScorer {
    pub fn new(ctx: &Arc<CudaContext>, weights: CudaSlice<f32>, max_rows: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let dim = weights.len();
        Ok(Self {
            score: ctx.load_module(compile_ptx(SCORE_SRC)?)?.load_function("logistic_score")?,
            x_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(max_rows * dim, 0)? },
            x_dev: stream.alloc_zeros::<f32>(max_rows * dim)?,
            out_dev: stream.alloc_zeros::<f32>(max_rows)?,
            out_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(max_rows, 0)? },
            stream,
            weights,
            dim,
        })
    }

    pub async fn score(&mut self, features: &[f32]) -> Result<Vec<f32>, DriverError> {
        let rows = features.len() / self.dim;
        self.x_host.as_mut_slice()?[..features.len()].copy_from_slice(features);
        self.stream.memcpy_htod(&self.x_host, &mut self.x_dev)?;
        let (r, d) = (rows as u32, self.dim as u32);
        unsafe {
            self.stream
                .launch_builder(&self.score)
                .arg(&self.x_dev)
                .arg(&self.weights)
                .arg(&mut self.out_dev)
                .arg(&r)
                .arg(&d)
                .launch(LaunchConfig::for_num_elems(r))?
        };
        self.stream.memcpy_dtoh(&self.out_dev, &mut self.out_host)?;
        let copied = self.stream.record_event(None)?;
        EventDone { event: &copied }.await;
        Ok(self.out_host.as_slice()?[..rows].to_vec())
    }
}
