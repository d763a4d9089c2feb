//! Streaming noise gate: audio blocks go through pinned staging and a captured
//! upload / gate / download graph on a driver-created non-blocking stream.
//!
//! When the client renegotiates its block size, the block (graph and the memory
//! it was recorded on) is torn down and recorded again for the new size.

use std::error::Error;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::{
    result, sys, CudaContext, CudaFunction, CudaStream, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

type Res<T> = Result<T, Box<dyn Error>>;

const GATE_SRC: &str = r#"
extern "C" __global__ void soft_gate(const float* in, float* out, int n, float floor_db, float knee) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    float level = 20.0f * log10f(fabsf(x) + 1e-9f);
    float g = 1.0f / (1.0f + expf(-(level - floor_db) / knee));
    out[i] = x * g;
}
"#;

struct HostPinned {
    ptr: *mut f32,
    len: usize,
}

impl HostPinned {
    fn new(len: usize) -> Res<Self> {
        let mut p: *mut std::ffi::c_void = ptr::null_mut();
        unsafe { sys::cuMemAllocHost_v2(&mut p, len * std::mem::size_of::<f32>()) }.result()?;
        unsafe { ptr::write_bytes(p.cast::<f32>(), 0, len) };
        Ok(Self { ptr: p.cast(), len })
    }
    fn as_mut_slice(&mut self) -> &mut [f32] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
    fn as_slice(&self) -> &[f32] {
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for HostPinned {
    fn drop(&mut self) {
        let _ = unsafe { sys::cuMemFreeHost(self.ptr.cast()) };
    }
}

struct DevMem(sys::CUdeviceptr);

impl DevMem {
    fn new(bytes: usize) -> Res<Self> {
        let mut d: sys::CUdeviceptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut d, bytes) }.result()?;
        Ok(Self(d))
    }
}

impl Drop for DevMem {
    fn drop(&mut self) {
        let _ = unsafe { sys::cuMemFree_v2(self.0) };
    }
}

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

/// One negotiated block size: the graph first, then the memory it names.
struct GateBlock {
    exec: ExecGraph,
    input: HostPinned,
    output: HostPinned,
    d_in: DevMem,
    d_out: DevMem,
    samples: usize,
}

pub struct NoiseGate {
    block: Option<GateBlock>,
    launcher: Arc<CudaStream>,
    gate: CudaFunction,
    floor_db: f32,
    done: sys::CUevent,
    raw: sys::CUstream,
}

impl NoiseGate {
    pub fn open(ctx: &Arc<CudaContext>, samples: usize, floor_db: f32) -> Res<Self> {
        let gate = ctx
            .load_module(compile_ptx(GATE_SRC)?)?
            .load_function("soft_gate")?;
        let mut raw: sys::CUstream = ptr::null_mut();
        unsafe { sys::cuStreamCreate(&mut raw, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }
            .result()?;
        let done = match result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING) {
            Ok(ev) => ev,
            Err(e) => {
                let _ = unsafe { sys::cuStreamDestroy_v2(raw) };
                return Err(e.into());
            }
        };
        let launcher = unsafe { ctx.wrap_borrowed_stream(raw) };
        let mut gate = Self { block: None, launcher, gate, floor_db, done, raw };
        gate.negotiate(samples)?;
        Ok(gate)
    }

    /// Tears down the current block, if any, and records one for `samples`.
    pub fn negotiate(&mut self, samples: usize) -> Res<()> {
        unsafe { result::stream::synchronize(self.raw)? };
        // Graph, then the pinned and device memory it was recorded on.
        self.block = None;

        let bytes = samples * std::mem::size_of::<f32>();
        let input = HostPinned::new(samples)?;
        let output = HostPinned::new(samples)?;
        let d_in = DevMem::new(bytes)?;
        let d_out = DevMem::new(bytes)?;
        let n = samples as i32;
        let knee = 3.0f32;

        unsafe {
            result::stream::begin_capture(self.raw, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
            sys::cuMemcpyHtoDAsync_v2(d_in.0, input.ptr.cast(), bytes, self.raw).result()?;
            self.launcher
                .launch_builder(&self.gate)
                .arg(&d_in.0)
                .arg(&d_out.0)
                .arg(&n)
                .arg(&self.floor_db)
                .arg(&knee)
                .launch(LaunchConfig::for_num_elems(samples as u32))?;
            sys::cuMemcpyDtoHAsync_v2(output.ptr.cast(), d_out.0, bytes, self.raw).result()?;
            let graph = result::stream::end_capture(self.raw)?;
            let exec = match result::graph::instantiate(graph, sys::CUgraphInstantiate_flags(0)) {
                Ok(exec) => exec,
                Err(e) => {
                    let _ = result::graph::destroy(graph);
                    return Err(e.into());
                }
            };
            self.block = Some(GateBlock {
                exec: ExecGraph { graph, exec },
                input,
                output,
                d_in,
                d_out,
                samples,
            });
        }
        Ok(())
    }

    /// Gates one block of audio in place.
    pub fn process(&mut self, audio: &mut [f32]) -> Res<()> {
        let block = self.block.as_mut().ok_or("no negotiated block")?;
        if audio.len() != block.samples {
            return Err("block size differs from the negotiated one".into());
        }
        // The previous replay was waited for through `done` before its output was read.
        block.input.as_mut_slice().copy_from_slice(audio);
        unsafe {
            result::graph::launch(block.exec.exec, self.raw)?;
            result::event::record(self.done, self.raw)?;
            result::event::synchronize(self.done)?;
        }
        audio.copy_from_slice(block.output.as_slice());
        Ok(())
    }
}

impl Drop for NoiseGate {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::synchronize(self.raw);
            self.block = None;
            let _ = result::event::destroy(self.done);
            let _ = sys::cuStreamDestroy_v2(self.raw);
        }
    }
}

/// Gates `stream_a` in blocks of `first`, then `stream_b` in blocks of `second`.
pub fn gate_renegotiated(
    stream_a: &mut [f32],
    first: usize,
    stream_b: &mut [f32],
    second: usize,
) -> Res<()> {
    let ctx = CudaContext::new(0)?;
    let mut gate = NoiseGate::open(&ctx, first, -40.0)?;
    for chunk in stream_a.chunks_exact_mut(first) {
        gate.process(chunk)?;
    }
    gate.negotiate(second)?;
    for chunk in stream_b.chunks_exact_mut(second) {
        gate.process(chunk)?;
    }
    Ok(())
}
