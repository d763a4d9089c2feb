//! case: cudarc uploads from write-combined pinned memory (only written by the host), a one-element length upload from the stack, and a readback into cached pinned memory with event tracking on
//! expect: none
use std::error::Error;

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const CLAMP_SRC: &str = r#"
extern "C" __global__ void clamp01(float* x, const unsigned* n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n[0]) x[i] = fminf(fmaxf(x[i], 0.0f), 1.0f);
}
"#;

pub fn clamp_all(values: &[f32]) -> Result<f32, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let clamp = ctx.load_module(compile_ptx(CLAMP_SRC)?)?.load_function("clamp01")?;

    // SAFETY: fully written before the upload.
    let mut upload = unsafe { ctx.alloc_pinned::<f32>(values.len())? };
    upload.as_mut_slice()?.copy_from_slice(values);
    let mut x = stream.clone_htod(&upload)?;
    let mut n_dev = stream.alloc_zeros::<u32>(1)?;
    stream.memcpy_htod(&[values.len() as u32], &mut n_dev)?;

    let mut b = stream.launch_builder(&clamp);
    b.arg(&mut x).arg(&n_dev);
    // SAFETY: clamp01(float*, const unsigned*).
    unsafe { b.launch(LaunchConfig::for_num_elems(values.len() as u32)) }?;

    // SAFETY: filled by the copy. Flags 0: cached, fine to read.
    let mut back = unsafe { ctx.alloc_pinned_with_flags::<f32>(values.len(), 0)? };
    stream.memcpy_dtoh(&x, &mut back)?;
    Ok(back.as_slice()?.iter().sum())
}
