//! case: runtime-layer VirtualRange::map (which grants access) used by a raw cuLaunchKernel, then unmapped and mapped again through the runtime before the next launch
//! expect: none
use std::ffi::c_void;
use std::ptr::null_mut;

use cuda_lint_runtime::{Context, Mapping, PhysicalAllocation, Result, VirtualRange};
use cudarc::driver::sys;

const SRC: &str = r#"
extern "C" __global__ void scale(float* v, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] *= a;
}
"#;

fn launch_scale(f: sys::CUfunction, stream: sys::CUstream, m: &Mapping, a: f32) -> sys::CUresult {
    let mut ptr = m.device_ptr().as_raw();
    let (mut a, mut n) = (a, (m.size() / 4) as u32);
    let mut params = [&mut ptr as *mut _ as *mut c_void, &mut a as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
    unsafe { sys::cuLaunchKernel(f, n.div_ceil(256), 1, 1, 256, 1, 1, 0, stream, params.as_mut_ptr(), null_mut()) }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let stream = ctx.new_stream()?;
    let kernel = ctx.load_cuda(SRC)?.function("scale")?;
    let size = ctx.vmm_granularity()? * 4;
    let first = PhysicalAllocation::new(&ctx, size)?;
    let second = PhysicalAllocation::new(&ctx, size)?;

    let mut mapping = VirtualRange::reserve(&ctx, size)?.map(&first, 0)?;
    stream.memset_d32_async(&mut mapping, 0x3f80_0000)?; // 1.0f
    ctx.bind_to_thread()?;
    assert_eq!(launch_scale(kernel.as_raw(), stream.as_raw(), &mapping, 2.0), sys::CUresult::CUDA_SUCCESS);

    // move the same addresses onto the second allocation: unmap() waits, map() grants access again
    let range = mapping.unmap()?;
    let mut mapping = range.map(&second, 0)?;
    stream.memset_d32_async(&mut mapping, 0x4000_0000)?; // 2.0f
    assert_eq!(launch_scale(kernel.as_raw(), stream.as_raw(), &mapping, 0.5), sys::CUresult::CUDA_SUCCESS);
    stream.synchronize()
}
