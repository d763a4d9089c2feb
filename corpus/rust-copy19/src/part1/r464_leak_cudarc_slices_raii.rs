//! case: cudarc: device slices are allocated in a loop with alloc_zeros and clone_htod and the function has several `?` returns; CudaSlice frees itself on drop, so no path loses memory
//! expect: none
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const N: usize = 1024;
const ROUNDS: usize = 4;

const DOUBLE_SRC: &str = r#"
extern "C" __global__ void twice(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
"#;

pub fn doubled_rounds(x: &[f32; N]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(DOUBLE_SRC)?)?.load_function("twice")?;
    let n = N as i32;
    let mut current: [f32; N] = *x;
    for _ in 0..ROUNDS {
        let d_x = stream.clone_htod(&current)?;
        let mut d_y = stream.alloc_zeros::<f32>(N)?;
        let mut b = stream.launch_builder(&f);
        b.arg(&d_x).arg(&mut d_y).arg(&n);
        unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)) }?;
        stream.memcpy_dtoh(&d_y, &mut current)?;
        stream.synchronize()?;
    }
    Ok(current.to_vec())
}
