//! case: cudarc: a buffer from unsafe alloc is filled by an iota kernel that writes every element before a second kernel reads it; the read-only use comes after a write
//! expect: none
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const N: usize = 2048;

const SRC: &str = r#"
extern "C" __global__ void iota(float* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = (float)i;
}
extern "C" __global__ void square(const float* v, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = v[i] * v[i];
}
"#;

pub fn squares() -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let iota = module.load_function("iota")?;
    let square = module.load_function("square")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut d_v = unsafe { stream.alloc::<f32>(N) }?;
    let mut d_out = unsafe { stream.alloc::<f32>(N) }?;
    let mut b1 = stream.launch_builder(&iota);
    b1.arg(&mut d_v).arg(&n);
    unsafe { b1.launch(cfg) }?;
    let mut b2 = stream.launch_builder(&square);
    b2.arg(&d_v).arg(&mut d_out).arg(&n);
    unsafe { b2.launch(cfg) }?;
    let out = stream.clone_dtoh(&d_out)?;
    stream.synchronize()?;
    Ok(out)
}
