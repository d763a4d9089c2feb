//! 1-D convolutional denoiser for sensor traces, replayed as a CUDA graph built with
//! cudarc's `driver::result` layer.
//!
//! The filter taps are uploaded with a blocking copy and the context is synchronized
//! before the capture begins; after the capture ends the context is synchronized
//! again before the executable graph is replayed once per trace block.

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    result, sys, CudaContext, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const DENOISE_SRC: &str = r#"
extern "C" __global__ void conv1d_same(const float* __restrict__ x,
                                       const float* __restrict__ taps,
                                       float* __restrict__ y, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int half = k / 2;
    float acc = 0.0f;
    for (int j = 0; j < k; ++j) {
        int src = i + j - half;
        if (src >= 0 && src < n) acc += taps[j] * x[src];
    }
    y[i] = acc;
}

extern "C" __global__ void soft_threshold(float* __restrict__ y, float lambda, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = y[i];
    float a = fabsf(v) - lambda;
    y[i] = a > 0.0f ? copysignf(a, v) : 0.0f;
}
"#;

/// Owns an instantiated graph made through the result layer.
struct RawGraph {
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
}

impl Drop for RawGraph {
    fn drop(&mut self) {
        unsafe {
            let _ = result::graph::exec_destroy(self.exec);
            let _ = result::graph::destroy(self.graph);
        }
    }
}

/// Denoises trace blocks of `n` samples each with a `taps.len()`-tap filter followed
/// by soft thresholding; returns the denoised blocks.
pub fn denoise_blocks(
    taps: &[f32],
    blocks: &[Vec<f32>],
    n: usize,
    lambda: f32,
) -> Result<Vec<Vec<f32>>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream: Arc<CudaStream> = ctx.new_stream()?;
    let cu = stream.cu_stream();

    let module = ctx.load_module(compile_ptx(DENOISE_SRC)?)?;
    let conv = module.load_function("conv1d_same")?;
    let shrink = module.load_function("soft_threshold")?;

    // Device buffers; the taps go up with a blocking copy before any capture.
    let mut d_taps = stream.alloc_zeros::<f32>(taps.len())?;
    let mut d_x = stream.alloc_zeros::<f32>(n)?;
    let mut d_y = stream.alloc_zeros::<f32>(n)?;
    stream.synchronize()?;
    {
        let (taps_ptr, _rec) = d_taps.device_ptr_mut(&stream);
        unsafe { result::memcpy_htod_sync(taps_ptr, taps) }?;
    }
    ctx.synchronize()?;

    let mut h_in = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0) }?;
    let mut h_out = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0) }?;

    let cfg = LaunchConfig::for_num_elems(n as u32);
    let n_i = n as i32;
    let k_i = taps.len() as i32;

    unsafe {
        result::stream::begin_capture(cu, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)
    }?;
    stream.memcpy_htod(&h_in, &mut d_x)?;
    let mut b = stream.launch_builder(&conv);
    b.arg(&d_x).arg(&d_taps).arg(&mut d_y).arg(&n_i).arg(&k_i);
    unsafe { b.launch(cfg) }?;
    let mut b = stream.launch_builder(&shrink);
    b.arg(&mut d_y).arg(&lambda).arg(&n_i);
    unsafe { b.launch(cfg) }?;
    stream.memcpy_dtoh(&d_y, &mut h_out)?;
    let cu_graph = unsafe { result::stream::end_capture(cu) }?;
    let exec = unsafe { result::graph::instantiate(cu_graph, sys::CUgraphInstantiate_flags(0)) }?;
    let graph = RawGraph { graph: cu_graph, exec };
    // Capture is over: synchronous calls are allowed again.
    ctx.synchronize()?;

    let mut denoised = Vec::with_capacity(blocks.len());
    for block in blocks {
        assert_eq!(block.len(), n);
        h_in.as_mut_slice()?.copy_from_slice(block);
        unsafe { result::graph::launch(graph.exec, cu) }?;
        // Waits for the replay: h_out holds this block, h_in may be rewritten.
        stream.synchronize()?;
        denoised.push(h_out.as_slice()?.to_vec());
    }
    drop(graph);
    Ok(denoised)
}
