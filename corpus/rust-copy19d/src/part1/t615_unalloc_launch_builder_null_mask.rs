//! case: an attention-mask step passes a CUdeviceptr of 0 as the mask to a kernel (launch_builder) that loads mask[i] without testing it for null.
//! expect: unallocated_pointer=1
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const MASK_SRC: &str = r#"
extern "C" __global__ void apply_mask(float* scores, const float* mask, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) scores[i] = scores[i] + mask[i];
}
"#;

const SEQ: usize = 256;

pub fn masked_scores(scores: &[f32]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(MASK_SRC)?)?;
    let f = module.load_function("apply_mask")?;
    let mut d_scores = stream.clone_htod(&scores[..SEQ * SEQ])?;
    let d_mask: CUdeviceptr = 0;
    let n = (SEQ * SEQ) as i32;
    let cfg = LaunchConfig::for_num_elems(n as u32);
    unsafe { stream.launch_builder(&f).arg(&mut d_scores).arg(&d_mask).arg(&n).launch(cfg) }?; // EXPECT: unallocated_pointer
    Ok(stream.clone_dtoh(&d_scores)?)
}
