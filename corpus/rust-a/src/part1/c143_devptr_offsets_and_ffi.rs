//! case: device addresses handled only as values on the host: formatted for a log, offset with pointer arithmetic for a sub-range launch, and passed to a C library function that runs on the GPU
//! expect: none
use std::ffi::c_void;

use cuda_lint_runtime::{Context, DevicePtr, LaunchConfig, Result};

unsafe extern "C" {
    /// From the vendor's reduction library: enqueues a device-side sum of `n` floats at `x`
    /// into `*out_dev` (a device address) on `stream`.
    fn vendor_reduce_f32(x: *const f32, n: usize, out_dev: *mut f32, stream: *mut c_void) -> i32;
}

const HALF_SRC: &str = r#"
extern "C" __global__ void halve(float* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 0.5f;
}
"#;

pub fn halve_tail(ctx: &Context, n: usize, skip: usize) -> Result<()> {
    let stream = ctx.new_stream()?;
    let halve = ctx.load_cuda(HALF_SRC)?.function("halve")?;
    let buf = ctx.alloc_zeroed::<f32>(n)?;
    let out = ctx.alloc_zeroed::<f32>(1)?;
    let base = buf.device_ptr();
    eprintln!("buffer at {:#x}, {} bytes", base.as_raw(), buf.num_bytes());

    // address of element `skip`, computed without touching the memory
    let tail_ptr = (base.as_raw() as *const f32).wrapping_add(skip);
    let tail = DevicePtr::from_raw(tail_ptr as u64);
    let len = (n - skip) as u32;
    // SAFETY: halve(float*, unsigned) over the last n - skip floats of `buf`.
    unsafe { stream.launch(&halve, LaunchConfig::for_num_elems(len), &[&tail, &len])? };

    let rc = unsafe { vendor_reduce_f32(base.as_raw() as *const f32, n, out.device_ptr().as_raw() as *mut f32, stream.as_raw().cast()) };
    assert_eq!(rc, 0, "vendor_reduce_f32 failed");
    stream.synchronize()
}
