//! Live tone mapping with a hot-reloadable LUT. The captured graph re-uploads the
//! LUT from its pinned host buffer at every replay on purpose: a new LUT written
//! between frames takes effect on the next frame without recapturing. The mapper
//! owns the graph and every buffer the graph names; it tears the graph down (after
//! waiting for the stream) before any of those buffers is released.

use std::error::Error;
use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DriverError,
    LaunchConfig, PushKernelArg,
};
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

/// Page-locked host memory from `cuMemHostAlloc`, released with `cuMemFreeHost`.
struct PinnedBuf {
    ptr: *mut f32,
    len: usize,
}

impl PinnedBuf {
    fn new(len: usize) -> Result<Self, DriverError> {
        let mut p = MaybeUninit::<*mut c_void>::uninit();
        unsafe { sys::cuMemHostAlloc(p.as_mut_ptr(), len * std::mem::size_of::<f32>(), 0) }
            .result()?;
        let ptr = unsafe { p.assume_init() } as *mut f32;
        unsafe { std::ptr::write_bytes(ptr, 0, len) };
        Ok(Self { ptr, len })
    }
    fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<f32>()
    }
    fn as_slice(&self) -> &[f32] {
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
    fn as_mut_slice(&mut self) -> &mut [f32] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for PinnedBuf {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFreeHost(self.ptr as *mut c_void);
        }
    }
}

struct LiveTonemapper {
    stream: Arc<CudaStream>,
    n: usize,
    h_lut: PinnedBuf,
    h_hdr: PinnedBuf,
    h_ldr: PinnedBuf,
    d_lut: CudaSlice<f32>,
    d_hdr: CudaSlice<f32>,
    d_ldr: CudaSlice<f32>,
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
}

impl LiveTonemapper {
    fn new(
        ctx: &Arc<CudaContext>,
        stream: &Arc<CudaStream>,
        apply: &CudaFunction,
        lut_len: usize,
        n: usize,
        max_lum: f32,
    ) -> Result<Self, Box<dyn Error>> {
        let cu = stream.cu_stream();
        let h_lut = PinnedBuf::new(lut_len)?;
        let h_hdr = PinnedBuf::new(n)?;
        let h_ldr = PinnedBuf::new(n)?;
        let mut d_lut = stream.alloc_zeros::<f32>(lut_len)?;
        let mut d_hdr = stream.alloc_zeros::<f32>(n)?;
        let mut d_ldr = stream.alloc_zeros::<f32>(n)?;
        stream.synchronize()?;

        let (lut_i, n_i) = (lut_len as i32, n as i32);
        unsafe {
            sys::cuStreamBeginCapture_v2(cu, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)
        }
        .result()?;
        {
            let (lut_dst, _r0) = d_lut.device_ptr_mut(stream);
            unsafe { sys::cuMemcpyHtoDAsync_v2(lut_dst, h_lut.ptr as *const c_void, h_lut.bytes(), cu) }
                .result()?;
            let (hdr_dst, _r1) = d_hdr.device_ptr_mut(stream);
            unsafe { sys::cuMemcpyHtoDAsync_v2(hdr_dst, h_hdr.ptr as *const c_void, h_hdr.bytes(), cu) }
                .result()?;
        }
        let mut b = stream.launch_builder(apply);
        b.arg(&d_hdr)
            .arg(&d_lut)
            .arg(&lut_i)
            .arg(&max_lum)
            .arg(&mut d_ldr)
            .arg(&n_i);
        unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
        {
            let (ldr_src, _r2) = d_ldr.device_ptr(stream);
            unsafe { sys::cuMemcpyDtoHAsync_v2(h_ldr.ptr as *mut c_void, ldr_src, h_ldr.bytes(), cu) }
                .result()?;
        }
        let mut graph = MaybeUninit::<sys::CUgraph>::uninit();
        unsafe { sys::cuStreamEndCapture(cu, graph.as_mut_ptr()) }.result()?;
        let graph = unsafe { graph.assume_init() };
        let mut exec = MaybeUninit::<sys::CUgraphExec>::uninit();
        unsafe { sys::cuGraphInstantiateWithFlags(exec.as_mut_ptr(), graph, 0) }.result()?;
        let exec = unsafe { exec.assume_init() };

        Ok(Self { stream: stream.clone(), n, h_lut, h_hdr, h_ldr, d_lut, d_hdr, d_ldr, graph, exec })
    }
}

impl Drop for LiveTonemapper {
    fn drop(&mut self) {
        // Wait for the last replay, retire the graph, and only then let the
        // fields (the buffers the graph names) be released.
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream.cu_stream());
            let _ = sys::cuGraphExecDestroy(self.exec);
            let _ = sys::cuGraphDestroy(self.graph);
        }
    }
}

/// Tone-maps each frame; a frame may carry a replacement LUT (same length) that
/// applies from that frame on.
pub fn live_tonemap(
    initial_lut: &[f32],
    frames: &[(Option<Vec<f32>>, Vec<f32>)],
    n: usize,
    max_lum: f32,
) -> Result<Vec<Vec<f32>>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(TONEMAP_SRC)?)?;
    let apply = module.load_function("apply_lut")?;

    let mut mapper = LiveTonemapper::new(&ctx, &stream, &apply, initial_lut.len(), n, max_lum)?;
    mapper.h_lut.as_mut_slice().copy_from_slice(initial_lut);

    let mut out = Vec::with_capacity(frames.len());
    for (new_lut, hdr) in frames {
        // The stream is idle here: the previous frame ended with a synchronize.
        if let Some(lut) = new_lut {
            mapper.h_lut.as_mut_slice().copy_from_slice(lut);
        }
        mapper.h_hdr.as_mut_slice().copy_from_slice(hdr);
        unsafe { sys::cuGraphLaunch(mapper.exec, stream.cu_stream()) }.result()?;
        unsafe { sys::cuStreamSynchronize(stream.cu_stream()) }.result()?;
        out.push(mapper.h_ldr.as_slice().to_vec());
    }
    drop(mapper);
    Ok(out)
}
