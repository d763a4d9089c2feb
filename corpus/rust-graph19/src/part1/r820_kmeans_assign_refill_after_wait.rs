//! Nearest-centroid assignment of a point stream, one captured graph per chunk
//! (upload, assign, download). The staging buffer is filled for the first chunk
//! after the capture (capture ran nothing, so no launch reads it yet); for the
//! following chunks the host normalizes the next chunk into a plain `Vec` while
//! the graph runs, waits for the launch stream, and only then copies it into
//! the pinned staging buffer.

use cudarc::driver::{sys, CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const ASSIGN_KERNEL: &str = r#"
extern "C" __global__ void assign_nearest(const float *points, const float *centroids, int *labels,
                                          int n, int k, int dim) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    int best = 0;
    float best_d = INFINITY;
    for (int c = 0; c < k; ++c) {
        float d = 0.0f;
        for (int j = 0; j < dim; ++j) {
            float diff = points[(size_t)p * dim + j] - centroids[(size_t)c * dim + j];
            d += diff * diff;
        }
        if (d < best_d) { best_d = d; best = c; }
    }
    labels[p] = best;
}
"#;

/// Scales each point to unit length, padding the chunk to `chunk` points.
fn normalized_chunk(points: &[f32], chunk: usize, dim: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; chunk * dim];
    for (p, src) in points.chunks(dim).take(chunk).enumerate() {
        let norm = src.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
        for (j, v) in src.iter().enumerate() {
            out[p * dim + j] = v / norm;
        }
    }
    out
}

pub fn assign_stream(
    centroids: &[f32],
    k: usize,
    dim: usize,
    chunks: &[Vec<f32>],
    chunk: usize,
) -> Result<Vec<Vec<i32>>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(ASSIGN_KERNEL)?)?;
    let assign = module.load_function("assign_nearest")?;

    let mut d_centroids = stream.alloc_zeros::<f32>(k * dim)?;
    let mut d_points = stream.alloc_zeros::<f32>(chunk * dim)?;
    let mut d_labels = stream.alloc_zeros::<i32>(chunk)?;
    let mut h_centroids = unsafe { ctx.alloc_pinned::<f32>(k * dim)? };
    h_centroids.as_mut_slice()?.copy_from_slice(&centroids[..k * dim]);
    stream.memcpy_htod(&h_centroids, &mut d_centroids)?;

    let mut h_points = unsafe { ctx.alloc_pinned::<f32>(chunk * dim)? };
    let mut h_labels = unsafe { ctx.alloc_pinned_with_flags::<i32>(chunk, 0)? };
    let (n, kk, d) = (chunk as i32, k as i32, dim as i32);

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    stream.memcpy_htod(&h_points, &mut d_points)?;
    let mut nearest = stream.launch_builder(&assign);
    nearest.arg(&d_points).arg(&d_centroids).arg(&mut d_labels).arg(&n).arg(&kk).arg(&d);
    unsafe { nearest.launch(LaunchConfig::for_num_elems(chunk as u32)) }?;
    stream.memcpy_dtoh(&d_labels, &mut h_labels)?;
    let step = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))?
        .ok_or("assignment capture produced no graph")?;

    let mut labels = Vec::with_capacity(chunks.len());
    if chunks.is_empty() {
        stream.synchronize()?;
        return Ok(labels);
    }
    h_points.as_mut_slice()?.copy_from_slice(&normalized_chunk(&chunks[0], chunk, dim));
    for i in 0..chunks.len() {
        step.launch()?;
        let next = chunks.get(i + 1).map(|c| normalized_chunk(c, chunk, dim));
        stream.synchronize()?;
        let count = (chunks[i].len() / dim).min(chunk);
        labels.push(h_labels.as_slice()?[..count].to_vec());
        if let Some(next) = next {
            h_points.as_mut_slice()?.copy_from_slice(&next);
        }
    }
    Ok(labels)
}
