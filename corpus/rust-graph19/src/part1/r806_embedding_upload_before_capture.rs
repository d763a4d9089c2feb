//! Embedding front end of a decoder: token embedding plus a sinusoidal position
//! table, captured once and replayed per decode step. The position table is
//! uploaded with a blocking `cuMemcpyHtoD` and the device is synchronized
//! before the capture begins; inside the capture only asynchronous copies from
//! pinned buffers are made, and those are recorded as graph nodes.

use cudarc::driver::{sys, CudaContext, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const EMBED_KERNEL: &str = r#"
extern "C" __global__ void embed_tokens(const int *tokens, const float *emb, const float *pos_table,
                                        float *out, int start, int tokens_n, int dim, int vocab) {
    int t = blockIdx.x;
    if (t >= tokens_n) return;
    int tok = min(max(tokens[t], 0), vocab - 1);
    for (int j = threadIdx.x; j < dim; j += blockDim.x)
        out[(size_t)t * dim + j] = emb[(size_t)tok * dim + j] + pos_table[(size_t)(start + t) * dim + j];
}
"#;

fn sinusoid_table(max_len: usize, dim: usize) -> Vec<f32> {
    let mut table = vec![0.0f32; max_len * dim];
    for p in 0..max_len {
        for j in 0..dim / 2 {
            let angle = p as f32 / 10000f32.powf(2.0 * j as f32 / dim as f32);
            table[p * dim + 2 * j] = angle.sin();
            table[p * dim + 2 * j + 1] = angle.cos();
        }
    }
    table
}

pub fn embed_decode_steps(
    embeddings: &[f32],
    vocab: usize,
    dim: usize,
    max_len: usize,
    steps: &[Vec<i32>],
    batch: usize,
) -> Result<Vec<Vec<f32>>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(EMBED_KERNEL)?)?;
    let embed = module.load_function("embed_tokens")?;

    let mut d_emb = stream.alloc_zeros::<f32>(vocab * dim)?;
    let mut d_pos_table = stream.alloc_zeros::<f32>(max_len * dim)?;
    let mut d_tokens = stream.alloc_zeros::<i32>(batch)?;
    let mut d_out = stream.alloc_zeros::<f32>(batch * dim)?;
    stream.synchronize()?;

    // Setup: the table goes up once, with a blocking copy, before any capture.
    let table = sinusoid_table(max_len, dim);
    {
        let (table_ptr, _record) = d_pos_table.device_ptr_mut(&stream);
        let bytes = table.len() * std::mem::size_of::<f32>();
        unsafe { sys::cuMemcpyHtoD_v2(table_ptr, table.as_ptr().cast(), bytes) }.result()?;
    }
    let mut h_emb = unsafe { ctx.alloc_pinned::<f32>(vocab * dim)? };
    h_emb.as_mut_slice()?.copy_from_slice(&embeddings[..vocab * dim]);
    stream.memcpy_htod(&h_emb, &mut d_emb)?;
    ctx.synchronize()?;
    drop(h_emb);

    let mut h_tokens = unsafe { ctx.alloc_pinned::<i32>(batch)? };
    let mut h_out = unsafe { ctx.alloc_pinned_with_flags::<f32>(batch * dim, 0)? };
    let (b, d, v) = (batch as i32, dim as i32, vocab as i32);
    let start = 0i32;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    stream.memcpy_htod(&h_tokens, &mut d_tokens)?;
    let mut lookup = stream.launch_builder(&embed);
    lookup
        .arg(&d_tokens)
        .arg(&d_emb)
        .arg(&d_pos_table)
        .arg(&mut d_out)
        .arg(&start)
        .arg(&b)
        .arg(&d)
        .arg(&v);
    unsafe {
        lookup.launch(LaunchConfig {
            grid_dim: (batch as u32, 1, 1),
            block_dim: (128, 1, 1),
            shared_mem_bytes: 0,
        })
    }?;
    stream.memcpy_dtoh(&d_out, &mut h_out)?;
    let step_graph = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))?
        .ok_or("embedding capture produced no graph")?;

    let mut outputs = Vec::with_capacity(steps.len());
    for ids in steps {
        let slots = h_tokens.as_mut_slice()?;
        slots.fill(0);
        let k = ids.len().min(batch);
        slots[..k].copy_from_slice(&ids[..k]);
        step_graph.launch()?;
        stream.synchronize()?;
        outputs.push(h_out.as_slice()?[..k * dim].to_vec());
    }
    Ok(outputs)
}
