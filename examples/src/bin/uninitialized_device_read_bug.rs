//! The `uninitialized_device_read` misuse, really happening, through the raw driver API: a
//! results buffer read back before anything wrote it (the upload went to another buffer, DRACC
//! 010's shape). `cuMemAlloc` does not clear memory: an earlier buffer of the same size, filled
//! with 0xC0FFEE and freed, is likely to be what the new one holds. The program prints how many
//! of the values read back are that stale pattern and how many are the zeros it meant to
//! read. The fix (`uninitialized_device_read_fixed`) clears the buffer first.

use std::ffi::c_void;

use cuda_lint_examples::open_gpu;
use cuda_lint_runtime::Error;
use cudarc::driver::sys::{self, CUdeviceptr};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

fn main() -> Result<(), Error> {
    println!("uninitialized_device_read (bug): a readback of memory nothing wrote");
    let Some(ctx) = open_gpu("uninitialized_device_read_bug")? else {
        return Ok(());
    };
    ctx.synchronize()?;
    let mut back = vec![0u32; N];
    unsafe {
        // Another part of the program used (and freed) a buffer of the same size.
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
        let status = sys::cuMemcpyDtoH_v2(back.as_mut_ptr() as *mut c_void, d_hist, BYTES); // cuda_lint::uninitialized_device_read
        println!("  cuMemcpyDtoH (histogram): {status:?}");
        sys::cuMemFree_v2(d_hist);
    }
    let stale = back.iter().filter(|&&v| v == 0xC0FFEE).count();
    let zeros = back.iter().filter(|&&v| v == 0).count();
    println!("uninitialized_device_read_bug: {stale} of {N} values are the earlier buffer's, {zeros} are zero");
    Ok(())
}
