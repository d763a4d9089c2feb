//! case: a kernel's scratch area comes from a `static mut` CUdeviceptr that nothing ever assigns (and whose address is never taken), so it is 0 when passed to a kernel that writes through it without testing it
//! expect: unallocated_pointer=1
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

static mut D_SCRATCH: CUdeviceptr = 0;

const N: usize = 2048;

const SMOOTH_SRC: &str = r#"
extern "C" __global__ void smooth(const float* x, float* scratch, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float l = i > 0 ? x[i - 1] : x[i];
    float r = i + 1 < n ? x[i + 1] : x[i];
    scratch[i] = 0.25f * l + 0.5f * x[i] + 0.25f * r;
    y[i] = scratch[i];
}
"#;

pub fn smooth() -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SMOOTH_SRC)?)?.load_function("smooth")?;

    let d_x = stream.clone_htod(&vec![1.0f32; N])?;
    let mut d_y = stream.alloc_zeros::<f32>(N)?;
    let scratch: CUdeviceptr = unsafe { D_SCRATCH };
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&d_x).arg(&scratch).arg(&mut d_y).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)) }?; // EXPECT: unallocated_pointer
    let y = stream.clone_dtoh(&d_y)?;
    stream.synchronize()?;
    Ok(y)
}
