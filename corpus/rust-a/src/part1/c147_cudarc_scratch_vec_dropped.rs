//! case: cudarc scratch buffers in a Vec<CudaSlice> read by kernels on the one stream are dropped (clear) before any synchronize: cudarc frees them stream-ordered (cuMemFreeAsync on that stream, or a synchronize first); the pinned result is read after stream.synchronize()
//! expect: none
use std::error::Error;

use cudarc::driver::{CudaContext, CudaSlice, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const AXPY_SRC: &str = r#"
extern "C" __global__ void axpy(float* y, const float* x, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}
"#;

pub fn accumulate(n: usize, terms: usize) -> Result<f32, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let axpy = ctx.load_module(compile_ptx(AXPY_SRC)?)?.load_function("axpy")?;
    let len = n as u32;

    let mut scratch: Vec<CudaSlice<f32>> = (0..terms).map(|_| stream.alloc_zeros::<f32>(n)).collect::<Result<_, _>>()?;
    let mut y = stream.alloc_zeros::<f32>(n)?;
    for (k, x) in scratch.iter().enumerate() {
        let a = 1.0 / (k + 1) as f32;
        let mut b = stream.launch_builder(&axpy);
        b.arg(&mut y).arg(x).arg(&a).arg(&len);
        // SAFETY: axpy(float*, const float*, float, unsigned) over n floats.
        unsafe { b.launch(LaunchConfig::for_num_elems(len)) }?;
    }
    scratch.clear(); // freed in stream order, after the kernels that read them

    // SAFETY: written by the copy, read after the synchronize. Flags 0: cached memory.
    let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0)? };
    stream.memcpy_dtoh(&y, &mut host)?;
    stream.synchronize()?;
    Ok(host.as_slice()?.iter().sum())
}
