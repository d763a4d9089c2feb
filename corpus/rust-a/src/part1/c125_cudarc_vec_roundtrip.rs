//! case: a cudarc batch job decodes samples from a byte buffer into a Vec, uploads it with clone_htod and reads the result back with clone_dtoh (both pageable); the Vec result is complete when clone_dtoh returns
//! expect: pageable_async_copy=2
use std::error::Error;

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const GAIN_SRC: &str = r#"
extern "C" __global__ void gain(float* x, float g, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = g * x[i];
}
"#;

fn decode(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

pub fn process(raw: &[u8], g: f32) -> Result<(f32, Vec<f32>), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let gain = ctx.load_module(compile_ptx(GAIN_SRC)?)?.load_function("gain")?;

    let samples = decode(raw);
    let mut dev = stream.clone_htod(&samples)?; // EXPECT: pageable_async_copy
    let n = samples.len() as u32;
    let mut b = stream.launch_builder(&gain);
    b.arg(&mut dev).arg(&g).arg(&n);
    // SAFETY: gain(float*, float, unsigned) over n floats.
    unsafe { b.launch(LaunchConfig::for_num_elems(n)) }?;

    let out = stream.clone_dtoh(&dev)?; // EXPECT: pageable_async_copy
    let peak = out.iter().cloned().fold(0.0f32, |m, v| m.max(v.abs()));
    Ok((peak, out))
}
