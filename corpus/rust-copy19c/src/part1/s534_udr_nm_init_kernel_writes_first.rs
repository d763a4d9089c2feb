//! case: near miss: buffers from the unsafe `alloc` are filled by an iota kernel (write-only) before the kernel that reads them
//! expect: none

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void iota(unsigned int* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i;
}
extern "C" __global__ void hash(const unsigned int* keys, unsigned int* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int k = keys[i];
        k ^= k >> 16; k *= 0x7feb352dU; k ^= k >> 15;
        out[i] = k;
    }
}
"#;

const N: usize = 8192;

pub fn hashed_indices() -> Result<Vec<u32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let iota = module.load_function("iota")?;
    let hash = module.load_function("hash")?;
    let mut keys = unsafe { stream.alloc::<u32>(N)? };
    let mut hashed = unsafe { stream.alloc::<u32>(N)? };
    let n = N as u32;
    let cfg = LaunchConfig::for_num_elems(n);
    let mut fill = stream.launch_builder(&iota);
    fill.arg(&mut keys).arg(&n);
    unsafe { fill.launch(cfg)? };
    let mut h = stream.launch_builder(&hash);
    h.arg(&keys).arg(&mut hashed).arg(&n);
    unsafe { h.launch(cfg)? };
    Ok(stream.clone_dtoh(&hashed)?)
}
