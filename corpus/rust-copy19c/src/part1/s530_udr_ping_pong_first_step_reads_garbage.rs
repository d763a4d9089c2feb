//! case: a Jacobi-style ping-pong loop: both grids come from the unsafe `alloc` and the initial condition is uploaded into `next` instead of `cur`, so the first step's stencil reads an unset grid
//! expect: uninitialized_device_read=1

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void relax(const float* src, float* dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) {
        dst[i] = 0.5f * (src[i - 1] + src[i + 1]);
    } else if (i == 0 || i == n - 1) {
        dst[i] = src[i];
    }
}
"#;

const N: usize = 4096;
const STEPS: usize = 100;

pub fn relax_1d(initial: &[f32]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let relax = ctx.load_module(compile_ptx(SRC)?)?.load_function("relax")?;
    let mut cur = unsafe { stream.alloc::<f32>(N)? };
    let mut next = unsafe { stream.alloc::<f32>(N)? };
    stream.memcpy_htod(&initial[..N], &mut next)?;
    let n = N as i32;
    for _ in 0..STEPS {
        let mut step = stream.launch_builder(&relax);
        step.arg(&cur).arg(&mut next).arg(&n);
        unsafe { step.launch(LaunchConfig::for_num_elems(N as u32))? }; // EXPECT: uninitialized_device_read
        std::mem::swap(&mut cur, &mut next);
    }
    Ok(stream.clone_dtoh(&cur)?)
}
