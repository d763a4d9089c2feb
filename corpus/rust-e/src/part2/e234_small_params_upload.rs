//! case: near-miss of a pageable copy: a colour-grading op uploads its 3x4 matrix and a few scalars from stack arrays and reads back a single clip counter into a one-element array, all copies far below 64 KiB (a device-to-pageable copy also returns only when done)
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const GRADE_SRC: &str = r#"
extern "C" __global__ void grade(float* rgb, const float* m, const float* lift_gain, unsigned int* clipped, unsigned int pixels) {
    unsigned int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pixels) return;
    float r = rgb[3 * p], g = rgb[3 * p + 1], b = rgb[3 * p + 2];
    float o[3];
    for (int c = 0; c < 3; ++c) {
        float v = m[4 * c] * r + m[4 * c + 1] * g + m[4 * c + 2] * b + m[4 * c + 3];
        v = lift_gain[0] + v * lift_gain[1];
        if (v > 1.f) { v = 1.f; atomicAdd(clipped, 1u); }
        o[c] = v;
    }
    rgb[3 * p] = o[0]; rgb[3 * p + 1] = o[1]; rgb[3 * p + 2] = o[2];
}
"#;

pub struct Grade {
    pub matrix: [f32; 12],
    pub lift: f32,
    pub gain: f32,
}

/// Applies `grade` in place and returns how many channel values were clipped.
pub fn apply_grade(stream: &Arc<CudaStream>, rgb: &mut CudaSlice<f32>, grade: &Grade) -> Result<u32, Box<dyn std::error::Error>> {
    let f = stream.context().load_module(compile_ptx(GRADE_SRC)?)?.load_function("grade")?;
    let m_dev = stream.clone_htod(&grade.matrix)?;
    let lg_dev = stream.clone_htod(&[grade.lift, grade.gain])?;
    let mut clipped_dev = stream.alloc_zeros::<u32>(1)?;
    let pixels = (rgb.len() / 3) as u32;

    let mut launch = stream.launch_builder(&f);
    launch.arg(rgb).arg(&m_dev).arg(&lg_dev).arg(&mut clipped_dev).arg(&pixels);
    unsafe { launch.launch(LaunchConfig::for_num_elems(pixels))? };

    let mut clipped = [0u32; 1];
    stream.memcpy_dtoh(&clipped_dev, &mut clipped)?;
    Ok(clipped[0])
}
