//! case: cudarc: an accumulator from unsafe alloc is passed to a kernel that does `acc[i] += x[i]`, reading and writing the same parameter; a kernel that both reads and writes is not a finding
//! expect: none
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const N: usize = 1024;

const ACC_SRC: &str = r#"
extern "C" __global__ void accumulate(float* acc, const float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += x[i];
}
"#;

pub fn accumulate(x: &[f32; N]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(ACC_SRC)?)?.load_function("accumulate")?;

    let mut d_acc = unsafe { stream.alloc::<f32>(N) }?;
    let d_x = stream.clone_htod(x)?;
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&mut d_acc).arg(&d_x).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)) }?;
    let acc = stream.clone_dtoh(&d_acc)?;
    stream.synchronize()?;
    Ok(acc)
}
