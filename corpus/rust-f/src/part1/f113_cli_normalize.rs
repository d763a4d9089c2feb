//! case: a command-line normalizer written against the CUDA runtime API: values are staged in `cudaMallocHost` memory and uploaded with `cudaMemcpy`, then non-finite entries are "fixed" by walking the `cudaMalloc` buffer on the host; teardown frees the pinned staging with `cudaFree`
//! expect: host_deref_device_ptr=1, mismatched_free=1

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys::{self, cudaMemcpyKind};

fn parse_values(text: &str) -> Vec<f32> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| t.parse::<f32>().unwrap_or(f32::NAN))
        .collect()
}

/// Uploads the values, clamps non-finite ones to zero, downloads and scales to [0, 1].
pub fn normalize(text: &str) -> Result<Vec<f32>, RuntimeError> {
    let values = parse_values(text);
    let n = values.len();
    let bytes = n * std::mem::size_of::<f32>();
    if n == 0 {
        return Ok(Vec::new());
    }

    let mut d_vals: *mut c_void = null_mut();
    let mut h_stage: *mut c_void = null_mut();
    unsafe {
        sys::cudaSetDevice(0).result()?;
        sys::cudaMalloc(&mut d_vals, bytes).result()?;
        sys::cudaMallocHost(&mut h_stage, bytes).result()?;
        std::slice::from_raw_parts_mut(h_stage as *mut f32, n).copy_from_slice(&values);
        sys::cudaMemcpy(d_vals, h_stage, bytes, cudaMemcpyKind::cudaMemcpyHostToDevice).result()?;

        for v in std::slice::from_raw_parts_mut(d_vals as *mut f32, n).iter_mut() { // EXPECT: host_deref_device_ptr
            if !v.is_finite() {
                *v = 0.0;
            }
        }

        sys::cudaMemcpy(h_stage, d_vals, bytes, cudaMemcpyKind::cudaMemcpyDeviceToHost).result()?;
    }

    let staged = unsafe { std::slice::from_raw_parts(h_stage as *const f32, n) };
    let (lo, hi) = staged.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let span = if hi > lo { hi - lo } else { 1.0 };
    let out = staged.iter().map(|&v| (v - lo) / span).collect();

    unsafe {
        sys::cudaFree(d_vals).result()?;
        sys::cudaFree(h_stage).result()?; // EXPECT: mismatched_free
    }
    Ok(out)
}

pub fn run() -> Result<(), RuntimeError> {
    let out = normalize("3.5, 1.0, nan, 7.25, inf, 2")?;
    println!("{out:?}");
    Ok(())
}
