//! case: dynamic batching in an inference server; queued requests are flattened into a fresh `Vec<f32>` and uploaded with `memcpy_htod`, an async copy from pageable memory (batch of up to 64 x 1024 floats); the readback goes through a pinned buffer and is synchronized before use
//! expect: pageable_async_copy=1

use std::collections::VecDeque;
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice,
    PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const FEATURES: usize = 1024;
const CLASSES: usize = 16;
const MAX_BATCH: usize = 64;

const HEAD_SRC: &str = r#"
extern "C" __global__ void linear_head(const float* x, const float* w, float* logits, unsigned batch) {
    unsigned row = blockIdx.x;
    unsigned cls = threadIdx.x;
    if (row >= batch || cls >= 16) return;
    float acc = 0.0f;
    for (unsigned k = 0; k < 1024; ++k) acc += x[row * 1024 + k] * w[k * 16 + cls];
    logits[row * 16 + cls] = acc;
}
"#;

pub struct Request {
    pub id: u64,
    pub features: Vec<f32>,
}

pub struct Response {
    pub id: u64,
    pub logits: Vec<f32>,
}

pub struct Batcher {
    stream: Arc<CudaStream>,
    head: CudaFunction,
    weights: CudaSlice<f32>,
    input: CudaSlice<f32>,
    logits: CudaSlice<f32>,
    logits_host: PinnedHostSlice<f32>,
    queue: VecDeque<Request>,
}

impl Batcher {
    pub fn new(ctx: &Arc<CudaContext>, weights: &PinnedHostSlice<f32>) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let head = ctx.load_module(compile_ptx(HEAD_SRC)?)?.load_function("linear_head")?;
        let weights = stream.clone_htod(weights)?;
        let input = stream.alloc_zeros::<f32>(MAX_BATCH * FEATURES)?;
        let logits = stream.alloc_zeros::<f32>(MAX_BATCH * CLASSES)?;
        let logits_host = unsafe { ctx.alloc_pinned_with_flags::<f32>(MAX_BATCH * CLASSES, 0)? };
        Ok(Self { stream, head, weights, input, logits, logits_host, queue: VecDeque::new() })
    }

    pub fn enqueue(&mut self, req: Request) {
        self.queue.push_back(req);
    }

    pub fn flush(&mut self) -> Result<Vec<Response>, DriverError> {
        let take = self.queue.len().min(MAX_BATCH);
        if take == 0 {
            return Ok(Vec::new());
        }
        let batch: Vec<Request> = self.queue.drain(..take).collect();
        let flat: Vec<f32> = batch.iter().flat_map(|r| r.features.iter().copied()).collect();

        let mut dst = self.input.slice_mut(..flat.len());
        self.stream.memcpy_htod(&flat, &mut dst)?; // EXPECT: pageable_async_copy

        let rows = batch.len() as u32;
        let cfg = LaunchConfig { grid_dim: (rows, 1, 1), block_dim: (CLASSES as u32, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream
                .launch_builder(&self.head)
                .arg(&self.input)
                .arg(&self.weights)
                .arg(&mut self.logits)
                .arg(&rows)
                .launch(cfg)?
        };
        self.stream.memcpy_dtoh(&self.logits, &mut self.logits_host)?;
        self.stream.synchronize()?;

        let host = self.logits_host.as_slice()?;
        Ok(batch
            .into_iter()
            .zip(host.chunks(CLASSES))
            .map(|(req, row)| Response { id: req.id, logits: row.to_vec() })
            .collect())
    }
}
