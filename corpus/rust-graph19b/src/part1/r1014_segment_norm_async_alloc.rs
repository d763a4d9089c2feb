//! Segment-wise L1 normalisation of attention weights (each segment of `seg_len`
//! weights is divided by its sum). The per-segment sums are a temporary of the
//! graph: allocated and freed stream-ordered (`cuMemAllocAsync`/`cuMemFreeAsync`)
//! inside the capture, so they become memory nodes of the graph.

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    result, sys, CudaContext, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const SEGNORM_SRC: &str = r#"
extern "C" __global__ void segment_sums(const float* __restrict__ w, int n, int seg_len,
                                        float* __restrict__ sums) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicAdd(&sums[i / seg_len], fabsf(w[i]));
}

extern "C" __global__ void segment_divide(const float* __restrict__ w,
                                          const float* __restrict__ sums,
                                          float* __restrict__ out, int n, int seg_len) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = sums[i / seg_len];
    out[i] = s > 0.0f ? w[i] / s : 0.0f;
}
"#;

/// Stream-ordered device memory: allocated with `cuMemAllocAsync` and freed with
/// `cuMemFreeAsync` on the same stream when dropped.
struct StreamOrdered {
    ptr: sys::CUdeviceptr,
    stream: sys::CUstream,
}

impl StreamOrdered {
    fn alloc(stream: sys::CUstream, bytes: usize) -> Result<Self, cudarc::driver::DriverError> {
        let ptr = unsafe { result::malloc_async(stream, bytes) }?;
        Ok(Self { ptr, stream })
    }
}

impl Drop for StreamOrdered {
    fn drop(&mut self) {
        let _ = unsafe { result::free_async(self.ptr, self.stream) };
    }
}

/// Normalises each batch (`segments * seg_len` weights) segment by segment.
pub fn normalize_segments(
    batches: &[Vec<f32>],
    segments: usize,
    seg_len: usize,
) -> Result<Vec<Vec<f32>>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    if !ctx.has_async_alloc() {
        return Err("device has no stream-ordered allocator".into());
    }
    let stream: Arc<CudaStream> = ctx.new_stream()?;
    let cu = stream.cu_stream();
    let module = ctx.load_module(compile_ptx(SEGNORM_SRC)?)?;
    let sums_fn = module.load_function("segment_sums")?;
    let divide_fn = module.load_function("segment_divide")?;

    let n = segments * seg_len;
    let mut h_w: PinnedHostSlice<f32> = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0) }?;
    let mut h_out: PinnedHostSlice<f32> = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0) }?;
    let mut d_w = stream.alloc_zeros::<f32>(n)?;
    let mut d_out = stream.alloc_zeros::<f32>(n)?;
    stream.synchronize()?;

    let (n_i, s_i) = (n as i32, seg_len as i32);
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let sums_bytes = segments * std::mem::size_of::<f32>();

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    stream.memcpy_htod(&h_w, &mut d_w)?;
    let sums = StreamOrdered::alloc(cu, sums_bytes)?;
    unsafe { result::memset_d8_async(sums.ptr, 0, sums_bytes, cu) }?;
    let mut b = stream.launch_builder(&sums_fn);
    b.arg(&d_w).arg(&n_i).arg(&s_i).arg(&sums.ptr);
    unsafe { b.launch(cfg) }?;
    let mut b = stream.launch_builder(&divide_fn);
    b.arg(&d_w).arg(&sums.ptr).arg(&mut d_out).arg(&n_i).arg(&s_i);
    unsafe { b.launch(cfg) }?;
    // Freed inside the capture: a free node of the graph, after the divide kernel.
    drop(sums);
    stream.memcpy_dtoh(&d_out, &mut h_out)?;
    let graph = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))?
        .ok_or("empty capture")?;

    let mut out = Vec::with_capacity(batches.len());
    for batch in batches {
        assert_eq!(batch.len(), n);
        h_w.as_mut_slice()?.copy_from_slice(batch);
        graph.launch()?;
        stream.synchronize()?;
        out.push(h_out.as_slice()?.to_vec());
    }
    Ok(out)
}
