//! Token sampler of a decoder: the temperature softmax over the vocabulary is
//! captured once into a graph. Its block-reduction workspace is allocated
//! lazily, on first use, and the first use happens inside the capture (global
//! mode), where `cuMemAlloc` is one of the calls capture does not permit.

use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaGraph, CudaSlice, CudaStream, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const SOFTMAX_KERNELS: &str = r#"
#define BLOCK 256
extern "C" __global__ void softmax_partials(const float *logits, float *ws, float inv_temp, int n) {
    __shared__ float smax[BLOCK];
    __shared__ float ssum[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    float v = i < n ? logits[i] * inv_temp : -INFINITY;
    smax[threadIdx.x] = v;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) smax[threadIdx.x] = fmaxf(smax[threadIdx.x], smax[threadIdx.x + s]);
        __syncthreads();
    }
    float m = smax[0];
    ssum[threadIdx.x] = i < n ? __expf(v - m) : 0.0f;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) ssum[threadIdx.x] += ssum[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        ws[2 * blockIdx.x] = m;
        ws[2 * blockIdx.x + 1] = ssum[0];
    }
}

extern "C" __global__ void softmax_finish(const float *logits, const float *ws, float *probs,
                                          float inv_temp, int n, int blocks) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i >= n) return;
    float m = -INFINITY;
    for (int b = 0; b < blocks; ++b) m = fmaxf(m, ws[2 * b]);
    float total = 0.0f;
    for (int b = 0; b < blocks; ++b) total += ws[2 * b + 1] * __expf(ws[2 * b] - m);
    probs[i] = __expf(logits[i] * inv_temp - m) / total;
}
"#;

const BLOCK: usize = 256;

pub struct Sampler {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    partials: CudaFunction,
    finish: CudaFunction,
    d_logits: CudaSlice<f32>,
    d_probs: CudaSlice<f32>,
    workspace: sys::CUdeviceptr,
    workspace_bytes: usize,
    vocab: usize,
    graph: Option<CudaGraph>,
}

impl Sampler {
    pub fn new(vocab: usize) -> Result<Self> {
        let ctx = CudaContext::new(0)?;
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(SOFTMAX_KERNELS)?)?;
        let partials = module.load_function("softmax_partials")?;
        let finish = module.load_function("softmax_finish")?;
        let d_logits = stream.alloc_zeros::<f32>(vocab)?;
        let d_probs = stream.alloc_zeros::<f32>(vocab)?;
        stream.synchronize()?;
        Ok(Self {
            ctx,
            stream,
            partials,
            finish,
            d_logits,
            d_probs,
            workspace: 0,
            workspace_bytes: 0,
            vocab,
            graph: None,
        })
    }

    /// Captures the softmax for `temperature`; called again when it changes.
    pub fn capture(&mut self, temperature: f32) -> Result<()> {
        let blocks = self.vocab.div_ceil(BLOCK);
        let n = self.vocab as i32;
        let nblocks = blocks as i32;
        let inv_temp = 1.0f32 / temperature.max(1e-3);
        let cfg = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (BLOCK as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        self.graph = None;

        self.stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        // One (max, sum) pair per block; allocated the first time the sampler runs.
        if self.workspace == 0 {
            let bytes = blocks * 2 * std::mem::size_of::<f32>();
            unsafe { sys::cuMemAlloc_v2(&mut self.workspace, bytes) }.result()?; // EXPECT: uncapturable_call
            self.workspace_bytes = bytes;
        }
        let mut reduce = self.stream.launch_builder(&self.partials);
        reduce
            .arg(&self.d_logits)
            .arg(&self.workspace)
            .arg(&inv_temp)
            .arg(&n);
        unsafe { reduce.launch(cfg) }?;
        let mut normalize = self.stream.launch_builder(&self.finish);
        normalize
            .arg(&self.d_logits)
            .arg(&self.workspace)
            .arg(&mut self.d_probs)
            .arg(&inv_temp)
            .arg(&n)
            .arg(&nblocks);
        unsafe { normalize.launch(cfg) }?;
        self.graph = self
            .stream
            .end_capture(sys::CUgraphInstantiate_flags(0))?;
        Ok(())
    }

    /// Runs the captured softmax on one step's logits.
    pub fn probabilities(
        &mut self,
        h_logits: &PinnedHostSlice<f32>,
        h_probs: &mut PinnedHostSlice<f32>,
    ) -> Result<()> {
        let graph = self.graph.as_ref().ok_or("sampler not captured")?;
        self.stream.memcpy_htod(h_logits, &mut self.d_logits)?;
        graph.launch()?;
        self.stream.memcpy_dtoh(&self.d_probs, h_probs)?;
        self.stream.synchronize()?;
        Ok(())
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.graph = None;
        let _ = self.stream.synchronize();
        if self.workspace != 0 {
            unsafe {
                let _ = sys::cuMemFree_v2(self.workspace);
            }
        }
    }
}
