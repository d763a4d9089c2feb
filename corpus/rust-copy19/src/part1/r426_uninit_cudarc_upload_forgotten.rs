//! case: cudarc: the input of a SAXPY is allocated with `unsafe { stream.alloc::<f32>(N) }` and its memcpy_htod was left out (DRACC 010), so the kernel reads x, a read-only parameter, from memory nothing wrote
//! expect: uninitialized_device_read=1
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const N: usize = 4096;

const SAXPY_SRC: &str = r#"
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}
"#;

pub fn saxpy(a: f32, y_host: &[f32; N]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SAXPY_SRC)?)?.load_function("saxpy")?;

    let d_x = unsafe { stream.alloc::<f32>(N) }?;
    let d_y = stream.clone_htod(y_host)?;
    let mut d_out = stream.alloc_zeros::<f32>(N)?;
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&a).arg(&d_x).arg(&d_y).arg(&mut d_out).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)) }?; // EXPECT: uninitialized_device_read
    let out = stream.clone_dtoh(&d_out)?;
    stream.synchronize()?;
    Ok(out)
}
