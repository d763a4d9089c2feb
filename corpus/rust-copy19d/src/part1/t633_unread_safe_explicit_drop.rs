//! case: a softmax step launched with launch_builder writes probabilities into a CudaSlice that is dropped explicitly; the function returns the logits it downloaded instead.
//! expect: unread_kernel_output=1
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SOFTMAX_SRC: &str = r#"
extern "C" __global__ void softmax_row(const float* logits, float* probs, int vocab) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    float m = logits[0];
    for (int i = 1; i < vocab; ++i) m = fmaxf(m, logits[i]);
    float s = 0.0f;
    for (int i = 0; i < vocab; ++i) s += expf(logits[i] - m);
    for (int i = 0; i < vocab; ++i) probs[i] = expf(logits[i] - m) / s;
}
"#;

const VOCAB: usize = 32_000;

pub fn next_token_probs(logits: &[f32]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SOFTMAX_SRC)?)?.load_function("softmax_row")?;
    let d_logits = stream.clone_htod(&logits[..VOCAB])?;
    let mut d_probs = stream.alloc_zeros::<f32>(VOCAB)?;
    let vocab = VOCAB as i32;
    let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
    unsafe { stream.launch_builder(&f).arg(&d_logits).arg(&mut d_probs).arg(&vocab).launch(cfg) }?;
    let out = stream.clone_dtoh(&d_logits)?;
    drop(d_probs); // EXPECT: unread_kernel_output
    Ok(out)
}
