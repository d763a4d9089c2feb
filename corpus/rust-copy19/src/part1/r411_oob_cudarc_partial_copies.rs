//! case: cudarc: a short prefix vector is uploaded with memcpy_htod into a longer zeroed device slice and the result is copied back with memcpy_dtoh into a host Vec as long as the device slice: every copy fits
//! expect: none
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const CAP: usize = 2048;
const PREFIX: usize = 100;

const PREFIX_SUM_SRC: &str = r#"
extern "C" __global__ void running_max(float* v, int n) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        for (int i = 1; i < n; ++i) v[i] = fmaxf(v[i], v[i - 1]);
    }
}
"#;

pub fn running_max() -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(PREFIX_SUM_SRC)?)?.load_function("running_max")?;

    let prefix = vec![3.0f32; PREFIX];
    let mut d_v = stream.alloc_zeros::<f32>(CAP)?;
    stream.memcpy_htod(&prefix, &mut d_v)?;

    let n = CAP as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&mut d_v).arg(&n);
    unsafe { b.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 }) }?;

    let mut host = vec![0.0f32; CAP];
    stream.memcpy_dtoh(&d_v, &mut host)?;
    stream.synchronize()?;
    Ok(host)
}
