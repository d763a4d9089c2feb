//! case: an inference batcher gathers queued requests into a Vec and runs a dense layer; the batch goes up with `clone_htod` and the logits come back with `clone_dtoh`, both through pageable memory of up to megabytes (correct, since those copies complete against pageable memory, but staged and slow)
//! expect: pageable_async_copy=2

use std::sync::mpsc::Receiver;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

pub const FEATURES: usize = 2048;
pub const CLASSES: usize = 1000;
pub const MAX_BATCH: usize = 256;

const DENSE_CU: &str = r#"
extern "C" __global__ void dense_softmax_free(const float* x, const float* w, const float* b,
                                              float* logits, int rows, int features, int classes) {
    int r = blockIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows || c >= classes) return;
    float acc = b[c];
    for (int k = 0; k < features; ++k) acc += x[r * features + k] * w[k * classes + c];
    logits[r * classes + c] = acc;
}
"#;

pub struct Request {
    pub id: u64,
    pub features: Vec<f32>,
}

pub struct Reply {
    pub id: u64,
    pub logits: Vec<f32>,
}

pub struct Batcher {
    stream: Arc<CudaStream>,
    dense: CudaFunction,
    weights: CudaSlice<f32>,
    bias: CudaSlice<f32>,
}

impl Batcher {
    pub fn new(ctx: &Arc<CudaContext>, weights: CudaSlice<f32>, bias: CudaSlice<f32>) -> Result<Self, Box<dyn std::error::Error>> {
        let dense = ctx.load_module(compile_ptx(DENSE_CU)?)?.load_function("dense_softmax_free")?;
        Ok(Self { stream: ctx.default_stream(), dense, weights, bias })
    }

    /// Drains up to MAX_BATCH requests from the queue and answers them all with one launch.
    pub fn serve_once(&self, queue: &Receiver<Request>) -> Result<Vec<Reply>, DriverError> {
        let requests: Vec<Request> = queue.try_iter().take(MAX_BATCH).collect();
        if requests.is_empty() {
            return Ok(Vec::new());
        }
        let rows = requests.len();
        let batch: Vec<f32> = requests
            .iter()
            .flat_map(|r| r.features.iter().copied().chain(std::iter::repeat(0.0)).take(FEATURES))
            .collect();

        let x = self.stream.clone_htod(&batch)?; // EXPECT: pageable_async_copy
        let mut logits = self.stream.alloc_zeros::<f32>(rows * CLASSES)?;
        let (rows_i, feat_i, cls_i) = (rows as i32, FEATURES as i32, CLASSES as i32);
        let cfg = LaunchConfig {
            grid_dim: ((CLASSES as u32).div_ceil(128), rows as u32, 1),
            block_dim: (128, 1, 1),
            shared_mem_bytes: 0,
        };
        unsafe {
            self.stream
                .launch_builder(&self.dense)
                .arg(&x)
                .arg(&self.weights)
                .arg(&self.bias)
                .arg(&mut logits)
                .arg(&rows_i)
                .arg(&feat_i)
                .arg(&cls_i)
                .launch(cfg)?;
        }
        let host = self.stream.clone_dtoh(&logits)?; // EXPECT: pageable_async_copy
        Ok(requests
            .into_iter()
            .zip(host.chunks_exact(CLASSES))
            .map(|(req, row)| Reply { id: req.id, logits: row.to_vec() })
            .collect())
    }
}
