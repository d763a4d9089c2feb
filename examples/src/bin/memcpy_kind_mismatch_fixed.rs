//! The fix of `memcpy_kind_mismatch_bug`: the readback goes through `cuMemcpyDtoH`, the
//! function of its direction, with the host buffer as its destination.

use std::ffi::c_void;

use cuda_lint_examples::open_gpu;
use cuda_lint_runtime::Error;
use cudarc::driver::sys::{self, CUdeviceptr};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

fn main() -> Result<(), Error> {
    println!("memcpy_kind_mismatch (fixed): a readback through the readback function");
    let Some(ctx) = open_gpu("memcpy_kind_mismatch_fixed")? else {
        return Ok(());
    };
    ctx.synchronize()?;
    let mut out = vec![0u32; N];
    unsafe {
        let mut dev: CUdeviceptr = 0;
        println!("  cuMemAlloc: {:?}", sys::cuMemAlloc_v2(&mut dev, BYTES));
        println!("  cuMemsetD32 (7s): {:?}", sys::cuMemsetD32_v2(dev, 7, N));
        let status = sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, dev, BYTES);
        println!("  cuMemcpyDtoH(host_out, dev): {status:?}");
        sys::cuMemFree_v2(dev);
    }
    let sevens = out.iter().filter(|&&v| v == 7).count();
    println!(
        "memcpy_kind_mismatch_fixed: the host buffer holds {sevens} of {N} device values (first: {})",
        out[0]
    );
    Ok(())
}
