//! case: DRACC 010 shape with cudarc: `b` comes from the unsafe `alloc` (unset memory) and is never uploaded, yet the add kernel reads it
//! expect: uninitialized_device_read=1

use cudarc::driver::{CudaContext, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void vec_add(const float* a, const float* b, float* c, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
"#;

const N: usize = 4096;

pub fn add_vectors(a_host: &[f32], b_host: &[f32]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let vec_add = module.load_function("vec_add")?;

    let a = stream.clone_htod(&a_host[..N])?;
    let b = unsafe { stream.alloc::<f32>(N)? };
    // stream.memcpy_htod(&b_host[..N], &mut b)?;   <- lost when the upload code was reorganised
    let mut c = stream.alloc_zeros::<f32>(N)?;

    let n = N as u32;
    let mut launch = stream.launch_builder(&vec_add);
    launch.arg(&a).arg(&b).arg(&mut c).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n))? }; // EXPECT: uninitialized_device_read
    Ok(stream.clone_dtoh(&c)?)
}
