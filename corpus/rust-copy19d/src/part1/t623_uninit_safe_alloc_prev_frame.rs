//! case: a temporal denoiser allocates its history frame with cudarc's unsafe alloc and, on the first frame, blends it in a kernel that only loads it.
//! expect: uninitialized_device_read=1
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const BLEND_SRC: &str = r#"
extern "C" __global__ void temporal_blend(const float* current, const float* history, float* out, float alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = alpha * current[i] + (1.0f - alpha) * history[i];
}
"#;

const PIXELS: usize = 1920 * 1080;

pub fn denoise_first_frame(frame: &[f32]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(BLEND_SRC)?)?;
    let blend = module.load_function("temporal_blend")?;
    let d_current = stream.clone_htod(&frame[..PIXELS])?;
    let d_history = unsafe { stream.alloc::<f32>(PIXELS) }?;
    let mut d_out = stream.alloc_zeros::<f32>(PIXELS)?;
    let alpha = 0.2f32;
    let n = PIXELS as i32;
    let cfg = LaunchConfig::for_num_elems(PIXELS as u32);
    unsafe { stream.launch_builder(&blend).arg(&d_current).arg(&d_history).arg(&mut d_out).arg(&alpha).arg(&n).launch(cfg) }?; // EXPECT: uninitialized_device_read
    Ok(stream.clone_dtoh(&d_out)?)
}
