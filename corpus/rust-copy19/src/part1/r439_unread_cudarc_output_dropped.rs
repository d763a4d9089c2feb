//! case: cudarc: a ReLU kernel writes d_act, but the readback clones d_pre (the input) by mistake and d_act is dropped (freed) without anything reading it
//! expect: unread_kernel_output=1
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const N: usize = 2048;

const RELU_SRC: &str = r#"
extern "C" __global__ void relu(const float* pre, float* act, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) act[i] = pre[i] > 0.0f ? pre[i] : 0.0f;
}
"#;

pub fn relu(pre: &[f32; N]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(RELU_SRC)?)?.load_function("relu")?;

    let d_pre = stream.clone_htod(pre)?;
    let mut d_act = stream.alloc_zeros::<f32>(N)?;
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&d_pre).arg(&mut d_act).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)) }?;
    stream.synchronize()?;
    let host = stream.clone_dtoh(&d_pre)?;
    drop(d_act); // EXPECT: unread_kernel_output
    Ok(host)
}
