//! A buffer of `i32` is not a device pointer to `f32`.
use cuda_lint_runtime::{DeviceArg, DeviceBuffer};

fn takes_f32(_: &impl DeviceArg<f32>) {}

fn pass(b: &DeviceBuffer<i32>) {
    takes_f32(b);
}

fn main() {
    let _ = pass;
}
