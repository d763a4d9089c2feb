//! Row-wise softmax over decoder logits for a fixed-shape batch, captured with raw
//! driver calls (`cudarc::driver::sys`) and replayed per decoding step. The row
//! maxima live in a scratch workspace obtained from `alloc_workspace`.

use std::error::Error;
use std::mem::MaybeUninit;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SOFTMAX_SRC: &str = r#"
extern "C" __global__ void row_max(const float* __restrict__ logits, int rows, int cols,
                                   float* __restrict__ ws) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float m = -3.402823466e38f;
    for (int c = 0; c < cols; ++c) m = fmaxf(m, logits[r * cols + c]);
    ws[r] = m;
}

extern "C" __global__ void softmax_rows(const float* __restrict__ logits,
                                        const float* __restrict__ ws,
                                        float* __restrict__ probs, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float z = 0.0f;
    for (int c = 0; c < cols; ++c) z += expf(logits[r * cols + c] - ws[r]);
    for (int c = 0; c < cols; ++c) probs[r * cols + c] = expf(logits[r * cols + c] - ws[r]) / z;
}
"#;

/// Device scratch memory released on drop.
struct Workspace {
    ptr: sys::CUdeviceptr,
    bytes: usize,
}

impl Drop for Workspace {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.ptr);
        }
    }
}

/// Reserves `bytes` of device scratch for a kernel pipeline.
fn alloc_workspace(bytes: usize) -> Result<Workspace, DriverError> {
    let mut ptr = MaybeUninit::<sys::CUdeviceptr>::uninit();
    unsafe { sys::cuMemAlloc_v2(ptr.as_mut_ptr(), bytes) }.result()?; // EXPECT: uncapturable_call
    Ok(Workspace { ptr: unsafe { ptr.assume_init() }, bytes })
}

/// An instantiated graph and its template, destroyed on drop.
struct Exec {
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
}

impl Drop for Exec {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuGraphExecDestroy(self.exec);
            let _ = sys::cuGraphDestroy(self.graph);
        }
    }
}

/// Softmax of `rows x cols` logits for every decoding step in `steps`.
pub fn decode_softmax(
    steps: &[Vec<f32>],
    rows: usize,
    cols: usize,
) -> Result<Vec<Vec<f32>>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream: Arc<CudaStream> = ctx.new_stream()?;
    let cu = stream.cu_stream();
    let module = ctx.load_module(compile_ptx(SOFTMAX_SRC)?)?;
    let max_fn = module.load_function("row_max")?;
    let softmax_fn = module.load_function("softmax_rows")?;

    let n = rows * cols;
    let mut h_logits = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0) }?;
    let mut h_probs = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0) }?;
    let mut d_logits = stream.alloc_zeros::<f32>(n)?;
    let mut d_probs = stream.alloc_zeros::<f32>(n)?;
    stream.synchronize()?;

    let (r_i, c_i) = (rows as i32, cols as i32);
    let cfg = LaunchConfig::for_num_elems(rows as u32);

    unsafe {
        sys::cuStreamBeginCapture_v2(cu, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)
    }
    .result()?;
    stream.memcpy_htod(&h_logits, &mut d_logits)?;
    let ws = alloc_workspace(rows * std::mem::size_of::<f32>())?;
    unsafe { sys::cuMemsetD32Async(ws.ptr, 0, rows, cu) }.result()?;
    let mut b = stream.launch_builder(&max_fn);
    b.arg(&d_logits).arg(&r_i).arg(&c_i).arg(&ws.ptr);
    unsafe { b.launch(cfg) }?;
    let mut b = stream.launch_builder(&softmax_fn);
    b.arg(&d_logits).arg(&ws.ptr).arg(&mut d_probs).arg(&r_i).arg(&c_i);
    unsafe { b.launch(cfg) }?;
    stream.memcpy_dtoh(&d_probs, &mut h_probs)?;
    let mut graph = MaybeUninit::<sys::CUgraph>::uninit();
    unsafe { sys::cuStreamEndCapture(cu, graph.as_mut_ptr()) }.result()?;
    let graph = unsafe { graph.assume_init() };
    let mut exec = MaybeUninit::<sys::CUgraphExec>::uninit();
    unsafe { sys::cuGraphInstantiateWithFlags(exec.as_mut_ptr(), graph, 0) }.result()?;
    let exec = Exec { graph, exec: unsafe { exec.assume_init() } };

    let mut out = Vec::with_capacity(steps.len());
    for logits in steps {
        assert_eq!(logits.len(), n);
        h_logits.as_mut_slice()?.copy_from_slice(logits);
        unsafe { sys::cuGraphLaunch(exec.exec, cu) }.result()?;
        unsafe { sys::cuStreamSynchronize(cu) }.result()?;
        out.push(h_probs.as_slice()?.to_vec());
    }
    drop(exec);
    drop(ws);
    Ok(out)
}
