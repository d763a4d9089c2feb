//! case: top-p sampler with a debug path (enabled by an environment variable) that prints the first logits; after synchronizing, it views the logits' device pointer as a host slice instead of copying them back
//! expect: host_deref_device_ptr=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const SAMPLER_SRC: &str = r#"
extern "C" __global__ void temperature_scale(float* logits, float inv_t, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) logits[i] *= inv_t;
}

extern "C" __global__ void sample_top_p(const float* logits, float top_p, float u, unsigned vocab, int* out) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    float m = -1e30f;
    for (unsigned v = 0; v < vocab; ++v) m = fmaxf(m, logits[v]);
    float z = 0.0f;
    for (unsigned v = 0; v < vocab; ++v) z += expf(logits[v] - m);
    float acc = 0.0f, target = u * top_p;
    for (unsigned v = 0; v < vocab; ++v) {
        acc += expf(logits[v] - m) / z;
        if (acc >= target) { out[0] = v; return; }
    }
    out[0] = vocab - 1;
}
"#;

fn debug_enabled() -> bool {
    std::env::var_os("SAMPLER_DEBUG").is_some()
}

pub fn sample(stream: &Arc<CudaStream>, logits: &mut CudaSlice<f32>, temperature: f32, top_p: f32, u: f32) -> Result<i32> {
    let ctx = stream.context();
    let module = ctx.load_module(compile_ptx(SAMPLER_SRC)?)?;
    let scale = module.load_function("temperature_scale")?;
    let pick = module.load_function("sample_top_p")?;
    let vocab = logits.len() as u32;
    let inv_t = 1.0 / temperature.max(1e-4);
    let mut out = stream.alloc_zeros::<i32>(1)?;

    let mut a = stream.launch_builder(&scale);
    a.arg(&mut *logits).arg(&inv_t).arg(&vocab);
    unsafe { a.launch(LaunchConfig::for_num_elems(vocab))? };
    let mut b = stream.launch_builder(&pick);
    b.arg(&*logits).arg(&top_p).arg(&u).arg(&vocab).arg(&mut out);
    unsafe { b.launch(LaunchConfig::for_num_elems(1))? };
    stream.synchronize()?;

    if debug_enabled() {
        let (ptr, _guard) = logits.device_ptr(stream);
        let head = unsafe { std::slice::from_raw_parts(ptr as *const f32, 8.min(vocab as usize)) }; // EXPECT: host_deref_device_ptr
        eprintln!("sampler: scaled logits[..8] = {head:?}");
    }

    let mut token = [0i32; 1];
    stream.memcpy_dtoh(&out, &mut token)?;
    Ok(token[0])
}

pub fn generate(prompt_logits: Vec<CudaSlice<f32>>) -> Result<Vec<i32>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let mut tokens = Vec::new();
    for (i, mut logits) in prompt_logits.into_iter().enumerate() {
        let u = ((i as f32 * 0.618_034) % 1.0).max(1e-3);
        tokens.push(sample(&stream, &mut logits, 0.8, 0.95, u)?);
    }
    Ok(tokens)
}
