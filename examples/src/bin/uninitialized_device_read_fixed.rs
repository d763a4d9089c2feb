//! The fix of `uninitialized_device_read_bug`: the histogram is cleared (`cuMemsetD32`) before
//! it is read back, so the readback holds zeros whatever the memory held before.

use std::ffi::c_void;

use cuda_lint_examples::open_gpu;
use cuda_lint_runtime::Error;
use cudarc::driver::sys::{self, CUdeviceptr};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

fn main() -> Result<(), Error> {
    println!("uninitialized_device_read (fixed): the buffer is cleared before it is read");
    let Some(ctx) = open_gpu("uninitialized_device_read_fixed")? else {
        return Ok(());
    };
    ctx.synchronize()?;
    let mut back = vec![0u32; N];
    unsafe {
        let mut earlier: CUdeviceptr = 0;
        println!("  cuMemAlloc (earlier): {:?}", sys::cuMemAlloc_v2(&mut earlier, BYTES));
        println!(
            "  cuMemsetD32 (earlier, 0xC0FFEE): {:?}",
            sys::cuMemsetD32_v2(earlier, 0xC0FFEE, N)
        );
        println!("  cuCtxSynchronize: {:?}", sys::cuCtxSynchronize());
        println!("  cuMemFree (earlier): {:?}", sys::cuMemFree_v2(earlier));
        let mut d_hist: CUdeviceptr = 0;
        println!("  cuMemAlloc (histogram): {:?}", sys::cuMemAlloc_v2(&mut d_hist, BYTES));
        println!("  cuMemsetD32 (histogram, 0): {:?}", sys::cuMemsetD32_v2(d_hist, 0, N));
        let status = sys::cuMemcpyDtoH_v2(back.as_mut_ptr() as *mut c_void, d_hist, BYTES);
        println!("  cuMemcpyDtoH (histogram): {status:?}");
        sys::cuMemFree_v2(d_hist);
    }
    let stale = back.iter().filter(|&&v| v == 0xC0FFEE).count();
    let zeros = back.iter().filter(|&&v| v == 0).count();
    println!("uninitialized_device_read_fixed: {stale} of {N} values are the earlier buffer's, {zeros} are zero");
    Ok(())
}
