//! The fix for `host_deref_device_ptr`: the host reads device data by copying it back
//! (`Stream::clone_dtoh`, a blocking device-to-host copy into a `Vec`), never through the device
//! address.
//!
//! 1024 floats (0, 1, 2, ...) are copied to device memory, doubled there by a kernel, and copied
//! back; the program prints the first and last values and the sum, and checks them against what
//! they must be (0, 2046 and 1047552). The bug (`host_deref_device_ptr_bug`) reads the same
//! device memory through `*const f32` and dies of SIGSEGV.

use cuda_lint_examples::open_gpu;
use cuda_lint_runtime::{Error, LaunchConfig};

const N: usize = 1024;

const SRC: &str = r#"
extern "C" __global__ void twice(float* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 2.0f * x[i];
}
"#;

fn main() -> Result<(), Error> {
    println!("host_deref_device_ptr (fixed): device data read back with Stream::clone_dtoh");
    let Some(ctx) = open_gpu("host_deref_device_ptr_fixed")? else {
        return Ok(());
    };
    let module = ctx.load_cuda(SRC)?;
    let twice = module.function("twice")?;
    let s = ctx.new_stream()?;
    let data: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let dev = s.clone_htod(&data)?;
    let n = N as u32;
    // SAFETY: `twice(float*, unsigned)` gets a buffer of `n` floats that outlives the kernel.
    unsafe { s.launch(&twice, LaunchConfig::for_num_elems(n), &[&dev, &n])? };
    // Blocking copy back into a Vec: it is ordered after the kernel on `s` and has completed
    // when the call returns.
    let back = s.clone_dtoh(&dev)?;
    let sum: f64 = back.iter().map(|&v| f64::from(v)).sum();
    let want: f64 = (0..N).map(|i| 2.0 * i as f64).sum();
    println!(
        "read back {} floats from {:?}: x[0] = {}, x[{}] = {}, sum = {sum} (want 0, {}, {want})",
        back.len(),
        dev.device_ptr(),
        back[0],
        N - 1,
        back[N - 1],
        2 * (N - 1)
    );
    if sum == want && back[N - 1] == (2 * (N - 1)) as f32 {
        println!("=> correct: the host sees the device's data through a copy, and nothing crashed");
        Ok(())
    } else {
        println!("FAILED: the values read back are wrong");
        std::process::exit(1);
    }
}
