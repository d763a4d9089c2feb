//! Dense layer with bias and GELU for batched inference, captured into a graph.
//! The bias is copied into the graph from a pinned staging buffer, and that
//! buffer is released right after the capture ("the bias is on the device
//! now"). The captured copy reads the staging buffer at every replay, so each
//! launch reads freed pinned memory (onnxruntime #32121's shape).

use cudarc::driver::{sys, CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const DENSE_KERNELS: &str = r#"
extern "C" __global__ void dense_bias_gelu(const float *x, const float *w, const float *bias,
                                           float *y, int batch, int in_dim, int out_dim) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (o >= out_dim || b >= batch) return;
    float acc = bias[o];
    for (int k = 0; k < in_dim; ++k) acc += x[(size_t)b * in_dim + k] * w[(size_t)o * in_dim + k];
    float c = 0.7978845608f * (acc + 0.044715f * acc * acc * acc);
    y[(size_t)b * out_dim + o] = 0.5f * acc * (1.0f + tanhf(c));
}
"#;

pub fn dense_inference(
    weights: &[f32],
    bias: &[f32],
    in_dim: usize,
    out_dim: usize,
    batches: &[Vec<f32>],
    batch: usize,
) -> Result<Vec<Vec<f32>>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(DENSE_KERNELS)?)?;
    let dense = module.load_function("dense_bias_gelu")?;

    let mut d_w = stream.alloc_zeros::<f32>(out_dim * in_dim)?;
    let mut d_bias = stream.alloc_zeros::<f32>(out_dim)?;
    let mut d_x = stream.alloc_zeros::<f32>(batch * in_dim)?;
    let mut d_y = stream.alloc_zeros::<f32>(batch * out_dim)?;
    {
        let mut h_w = unsafe { ctx.alloc_pinned::<f32>(out_dim * in_dim)? };
        h_w.as_mut_slice()?.copy_from_slice(&weights[..out_dim * in_dim]);
        stream.memcpy_htod(&h_w, &mut d_w)?;
        stream.synchronize()?;
    }

    let mut h_bias = unsafe { ctx.alloc_pinned::<f32>(out_dim)? };
    h_bias.as_mut_slice()?.copy_from_slice(&bias[..out_dim]);
    let mut h_x = unsafe { ctx.alloc_pinned::<f32>(batch * in_dim)? };
    let mut h_y = unsafe { ctx.alloc_pinned_with_flags::<f32>(batch * out_dim, 0)? };

    let (b, i, o) = (batch as i32, in_dim as i32, out_dim as i32);
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    stream.memcpy_htod(&h_bias, &mut d_bias)?;
    stream.memcpy_htod(&h_x, &mut d_x)?;
    let mut layer = stream.launch_builder(&dense);
    layer.arg(&d_x).arg(&d_w).arg(&d_bias).arg(&mut d_y).arg(&b).arg(&i).arg(&o);
    unsafe {
        layer.launch(LaunchConfig {
            grid_dim: (out_dim.div_ceil(128) as u32, batch as u32, 1),
            block_dim: (128, 1, 1),
            shared_mem_bytes: 0,
        })
    }?;
    stream.memcpy_dtoh(&d_y, &mut h_y)?;
    let forward = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))?
        .ok_or("dense capture produced no graph")?;
    // Pinned memory is scarce on the inference hosts; the bias is on the device now.
    drop(h_bias);

    let mut outputs = Vec::with_capacity(batches.len());
    for rows in batches {
        let x = h_x.as_mut_slice()?;
        x.fill(0.0);
        let k = rows.len().min(batch * in_dim);
        x[..k].copy_from_slice(&rows[..k]);
        forward.launch()?; // EXPECT: graph_uses_freed_memory
        stream.synchronize()?;
        outputs.push(h_y.as_slice()?[..(k / in_dim) * out_dim].to_vec());
    }
    Ok(outputs)
}
