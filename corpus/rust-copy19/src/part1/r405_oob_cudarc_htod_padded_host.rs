//! case: cudarc: a host signal padded to 2*N samples for an FFT is uploaded with memcpy_htod into a device slice from alloc_zeros::<f32>(N): the source is longer than the destination
//! expect: copy_out_of_bounds=1
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const N: usize = 1024;

const WINDOW_SRC: &str = r#"
extern "C" __global__ void hann(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float w = 0.5f - 0.5f * cosf(6.2831853f * i / (n - 1));
        x[i] = x[i] * w;
    }
}
"#;

pub fn windowed() -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(WINDOW_SRC)?)?;
    let hann = module.load_function("hann")?;

    let mut padded = vec![0.0f32; 2 * N];
    for i in 0..N {
        padded[i] = (i as f32 * 0.1).cos();
    }
    let mut d_sig = stream.alloc_zeros::<f32>(N)?;
    stream.memcpy_htod(&padded, &mut d_sig)?; // EXPECT: copy_out_of_bounds

    let n = N as i32;
    let mut launch = stream.launch_builder(&hann);
    launch.arg(&mut d_sig).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32)) }?;
    let out = stream.clone_dtoh(&d_sig)?;
    stream.synchronize()?;
    Ok(out)
}
