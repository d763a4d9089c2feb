//! HDR tone mapping through a 1-D lookup table. The eager version of this code
//! uploaded the LUT, then each frame, then ran the kernel; the graph version wraps
//! that whole sequence in one capture through cudarc's `driver::result` layer and
//! replays it per frame.

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const TONEMAP_SRC: &str = r#"
extern "C" __global__ void apply_lut(const float* __restrict__ hdr,
                                     const float* __restrict__ lut, int lut_len,
                                     float max_lum, float* __restrict__ ldr, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float t = fminf(fmaxf(hdr[i] / max_lum, 0.0f), 1.0f) * (lut_len - 1);
    int lo = (int)t;
    int hi = min(lo + 1, lut_len - 1);
    float f = t - lo;
    ldr[i] = lut[lo] * (1.0f - f) + lut[hi] * f;
}
"#;

struct GraphExec {
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
}

impl Drop for GraphExec {
    fn drop(&mut self) {
        unsafe {
            let _ = result::graph::exec_destroy(self.exec);
            let _ = result::graph::destroy(self.graph);
        }
    }
}

/// Tone-maps every frame of `n` luminance values through `lut`.
pub fn tonemap_frames(
    lut: &[f32],
    frames: &[Vec<f32>],
    n: usize,
    max_lum: f32,
) -> Result<Vec<Vec<f32>>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream: Arc<CudaStream> = ctx.new_stream()?;
    let cu = stream.cu_stream();
    let module = ctx.load_module(compile_ptx(TONEMAP_SRC)?)?;
    let apply = module.load_function("apply_lut")?;

    let mut d_lut = stream.alloc_zeros::<f32>(lut.len())?;
    let mut d_hdr = stream.alloc_zeros::<f32>(n)?;
    let mut d_ldr = stream.alloc_zeros::<f32>(n)?;
    let mut h_hdr = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0) }?;
    let mut h_ldr = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0) }?;
    stream.synchronize()?;

    let lut_len = lut.len() as i32;
    let n_i = n as i32;

    let exec = {
        // The LUT only has to reach the device once, so its staging copy is local.
        let mut h_lut = unsafe { ctx.alloc_pinned_with_flags::<f32>(lut.len(), 0) }?;
        h_lut.as_mut_slice()?.copy_from_slice(lut);

        unsafe {
            result::stream::begin_capture(
                cu,
                sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL,
            )
        }?;
        stream.memcpy_htod(&h_lut, &mut d_lut)?;
        stream.memcpy_htod(&h_hdr, &mut d_hdr)?;
        let mut b = stream.launch_builder(&apply);
        b.arg(&d_hdr)
            .arg(&d_lut)
            .arg(&lut_len)
            .arg(&max_lum)
            .arg(&mut d_ldr)
            .arg(&n_i);
        unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
        stream.memcpy_dtoh(&d_ldr, &mut h_ldr)?;
        let graph = unsafe { result::stream::end_capture(cu) }?;
        let exec = unsafe { result::graph::instantiate(graph, sys::CUgraphInstantiate_flags(0)) }?;
        GraphExec { graph, exec }
    };

    let mut out = Vec::with_capacity(frames.len());
    for frame in frames {
        assert_eq!(frame.len(), n);
        h_hdr.as_mut_slice()?.copy_from_slice(frame);
        unsafe { result::graph::launch(exec.exec, cu) }?; // EXPECT: graph_uses_freed_memory
        stream.synchronize()?;
        out.push(h_ldr.as_slice()?.to_vec());
    }
    drop(exec);
    Ok(out)
}
