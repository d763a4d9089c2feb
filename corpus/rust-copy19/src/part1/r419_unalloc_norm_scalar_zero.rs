//! case: a normalize kernel divides by norm[0] read through a device pointer; the reduction that used to allocate and fill d_norm was removed, leaving the CUdeviceptr 0 passed to a kernel that reads it without a null test
//! expect: unallocated_pointer=1
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const N: usize = 4096;

const NORMALIZE_SRC: &str = r#"
extern "C" __global__ void normalize(const float* in, const float* norm, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] / norm[0];
}
"#;

pub fn normalized(values: &[f32; N]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(NORMALIZE_SRC)?)?.load_function("normalize")?;

    let d_in = stream.clone_htod(values)?;
    let mut d_out = stream.alloc_zeros::<f32>(N)?;
    let d_norm: CUdeviceptr = 0;
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&d_in).arg(&d_norm).arg(&mut d_out).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)) }?; // EXPECT: unallocated_pointer
    let out = stream.clone_dtoh(&d_out)?;
    stream.synchronize()?;
    Ok(out)
}
