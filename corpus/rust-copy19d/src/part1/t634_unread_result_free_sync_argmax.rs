//! case: a classifier kernel writes both scores and argmax indices; the scores are copied back, the indices buffer is free_sync'd unread.
//! expect: unread_kernel_output=1
use cudarc::driver::result;
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::mem::size_of;

const CLS_SRC: &str = r#"
extern "C" __global__ void classify(const float* feats, float* best_score, int* best_class, int classes, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float b = feats[i * classes]; int bi = 0;
    for (int c = 1; c < classes; ++c) { float v = feats[i * classes + c]; if (v > b) { b = v; bi = c; } }
    best_score[i] = b;
    best_class[i] = bi;
}
"#;

const SAMPLES: usize = 8192;
const CLASSES: usize = 10;

pub fn classify(feats: &[f32]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(CLS_SRC)?)?.load_function("classify")?;
    let d_feats = stream.clone_htod(&feats[..SAMPLES * CLASSES])?;
    let mut scores = vec![0.0f32; SAMPLES];
    let d_score: CUdeviceptr = unsafe { result::malloc_sync(SAMPLES * size_of::<f32>()) }?;
    let d_class: CUdeviceptr = match unsafe { result::malloc_sync(SAMPLES * size_of::<i32>()) } {
        Ok(p) => p,
        Err(e) => {
            unsafe { result::free_sync(d_score) }?;
            return Err(e.into());
        }
    };
    let (classes, n) = (CLASSES as i32, SAMPLES as i32);
    let launched = unsafe { stream.launch_builder(&f).arg(&d_feats).arg(&d_score).arg(&d_class).arg(&classes).arg(&n).launch(LaunchConfig::for_num_elems(SAMPLES as u32)) };
    let synced = stream.synchronize();
    let copied = unsafe { result::memcpy_dtoh_sync(&mut scores, d_score) };
    unsafe {
        let _ = result::free_sync(d_score);
        let _ = result::free_sync(d_class); // EXPECT: unread_kernel_output
    }
    launched?;
    synced?;
    copied?;
    Ok(scores)
}
