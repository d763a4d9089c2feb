//! Row-wise L2 normalization of an embedding matrix, captured through
//! cudarc's `result` layer (`begin_capture`, `end_capture`, `instantiate`,
//! `graph::launch`). The partial-sum buffer is stream-ordered: allocated with
//! `cuMemAllocAsync` and freed with `cuMemFreeAsync` on the capturing stream,
//! which capture records as graph memory nodes. The stream is synchronized only
//! after the capture has ended and the graph was launched.

use std::mem::size_of;

use cudarc::driver::{result, sys, CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const NORM_KERNELS: &str = r#"
extern "C" __global__ void row_partial_sq(const float *x, float *partial, int rows, int cols,
                                          int chunk) {
    int r = blockIdx.y;
    int c0 = blockIdx.x * chunk;
    if (r >= rows) return;
    float acc = 0.0f;
    for (int c = c0 + threadIdx.x; c < min(c0 + chunk, cols); c += blockDim.x) {
        float v = x[(size_t)r * cols + c];
        acc += v * v;
    }
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
    if (threadIdx.x == 0) partial[(size_t)r * gridDim.x + blockIdx.x] = acc;
}

extern "C" __global__ void scale_rows(float *x, const float *partial, float *norms, int rows,
                                      int cols, int chunks) {
    int r = blockIdx.x;
    if (r >= rows) return;
    float total = 0.0f;
    for (int k = 0; k < chunks; ++k) total += partial[(size_t)r * chunks + k];
    float inv = rsqrtf(fmaxf(total, 1e-12f));
    if (threadIdx.x == 0) norms[r] = sqrtf(total);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) x[(size_t)r * cols + c] *= inv;
}
"#;

const CHUNK: usize = 1024;

pub fn normalize_rows(matrix: &[f32], rows: usize, cols: usize) -> Result<(Vec<f32>, Vec<f32>)> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(NORM_KERNELS)?)?;
    let partial_sq = module.load_function("row_partial_sq")?;
    let scale = module.load_function("scale_rows")?;

    let elems = rows * cols;
    let chunks = cols.div_ceil(CHUNK);
    let mut h_x = unsafe { ctx.alloc_pinned_with_flags::<f32>(elems, 0)? };
    h_x.as_mut_slice()?.copy_from_slice(&matrix[..elems]);
    let mut h_norms = unsafe { ctx.alloc_pinned_with_flags::<f32>(rows, 0)? };
    let mut d_x = stream.alloc_zeros::<f32>(elems)?;
    let mut d_norms = stream.alloc_zeros::<f32>(rows)?;
    stream.memcpy_htod(&h_x, &mut d_x)?;

    let (r, c, k, ch) = (rows as i32, cols as i32, chunks as i32, CHUNK as i32);
    let s = stream.cu_stream();
    unsafe { result::stream::begin_capture(s, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL) }?;
    let partial = unsafe { result::malloc_async(s, rows * chunks * size_of::<f32>()) }?;
    let mut reduce = stream.launch_builder(&partial_sq);
    reduce.arg(&d_x).arg(&partial).arg(&r).arg(&c).arg(&ch);
    let reduced = unsafe {
        reduce.launch(LaunchConfig {
            grid_dim: (chunks as u32, rows as u32, 1),
            block_dim: (32, 1, 1),
            shared_mem_bytes: 0,
        })
    };
    let mut apply = stream.launch_builder(&scale);
    apply.arg(&mut d_x).arg(&partial).arg(&mut d_norms).arg(&r).arg(&c).arg(&k);
    let applied = unsafe {
        apply.launch(LaunchConfig {
            grid_dim: (rows as u32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        })
    };
    // The partial sums live only inside the graph: freed in stream order.
    let freed = unsafe { result::free_async(partial, s) };
    let captured = unsafe { result::stream::end_capture(s) };
    reduced?;
    applied?;
    freed?;
    let graph = captured?;
    let exec = unsafe { result::graph::instantiate(graph, sys::CUgraphInstantiate_flags(0)) }?;

    unsafe { result::graph::launch(exec, s) }?;
    stream.memcpy_dtoh(&d_x, &mut h_x)?;
    stream.memcpy_dtoh(&d_norms, &mut h_norms)?;
    unsafe { result::stream::synchronize(s) }?;
    unsafe { result::graph::exec_destroy(exec) }?;
    unsafe { result::graph::destroy(graph) }?;
    Ok((h_x.as_slice()?.to_vec(), h_norms.as_slice()?.to_vec()))
}
