//! case: greedy decoding loop that copies each step's logits into a cudarc `alloc_pinned` buffer (write-combined in cudarc 0.19), synchronizes the stream, and takes the argmax on the host by reading that buffer
//! expect: write_combined_host_read=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const LM_HEAD_SRC: &str = r#"
extern "C" __global__ void lm_head(const float* hidden, const float* emb, float* logits, unsigned dim, unsigned vocab) {
    unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vocab) return;
    float s = 0.0f;
    for (unsigned k = 0; k < dim; ++k) s += hidden[k] * emb[(size_t)v * dim + k];
    logits[v] = s;
}

extern "C" __global__ void embed_token(const float* emb, int tok, float* hidden, unsigned dim) {
    unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < dim) hidden[k] = emb[(size_t)tok * dim + k];
}
"#;

pub fn greedy(stream: &Arc<CudaStream>, emb: &CudaSlice<f32>, dim: u32, first: i32, max_new: usize) -> Result<Vec<i32>> {
    let ctx = stream.context();
    let module = ctx.load_module(compile_ptx(LM_HEAD_SRC)?)?;
    let (head, embed) = (module.load_function("lm_head")?, module.load_function("embed_token")?);
    let vocab = (emb.len() / dim as usize) as u32;
    let mut hidden = stream.alloc_zeros::<f32>(dim as usize)?;
    let mut logits = stream.alloc_zeros::<f32>(vocab as usize)?;
    let mut logits_host = unsafe { ctx.alloc_pinned::<f32>(vocab as usize)? };

    let mut out = vec![first];
    let mut tok = first;
    for _ in 0..max_new {
        let mut e = stream.launch_builder(&embed);
        e.arg(emb).arg(&tok).arg(&mut hidden).arg(&dim);
        unsafe { e.launch(LaunchConfig::for_num_elems(dim))? };
        let mut h = stream.launch_builder(&head);
        h.arg(&hidden).arg(emb).arg(&mut logits).arg(&dim).arg(&vocab);
        unsafe { h.launch(LaunchConfig::for_num_elems(vocab))? };

        stream.memcpy_dtoh(&logits, &mut logits_host)?;
        stream.synchronize()?;
        let (best, _) = logits_host.as_slice()?.iter().enumerate().fold((0usize, f32::MIN), |acc, (i, &v)| if v > acc.1 { (i, v) } else { acc }); // EXPECT: write_combined_host_read
        tok = best as i32;
        out.push(tok);
        if tok == 2 {
            break;
        }
    }
    Ok(out)
}

pub fn run(emb: &CudaSlice<f32>, dim: u32) -> Result<Vec<i32>> {
    let stream = emb.context().default_stream();
    greedy(&stream, emb, dim, 1, 32)
}
