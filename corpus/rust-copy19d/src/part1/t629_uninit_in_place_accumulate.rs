//! case: a gradient-accumulation step gives a cuMemAlloc'd accumulator to a kernel that does `acc[i] += g[i]` (reads and writes it in place), then copies it back.
//! expect: none
use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::mem::size_of;

const ACC_SRC: &str = r#"
extern "C" __global__ void accumulate(float* acc, const float* g, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += g[i];
}
"#;

const PARAMS: usize = 1 << 18;

pub fn accumulate_grad(grad: &[f32]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(ACC_SRC)?)?.load_function("accumulate")?;
    let d_grad = stream.clone_htod(&grad[..PARAMS])?;
    let mut host = vec![0.0f32; PARAMS];
    let d_acc: CUdeviceptr = unsafe { result::malloc_sync(PARAMS * size_of::<f32>()) }?;
    let n = PARAMS as i32;
    let launched = unsafe { stream.launch_builder(&f).arg(&d_acc).arg(&d_grad).arg(&n).launch(LaunchConfig::for_num_elems(PARAMS as u32)) };
    let synced = stream.synchronize();
    let copied = unsafe { result::memcpy_dtoh_sync(&mut host, d_acc) };
    unsafe { result::free_sync(d_acc) }?;
    launched?;
    synced?;
    copied?;
    Ok(host)
}
