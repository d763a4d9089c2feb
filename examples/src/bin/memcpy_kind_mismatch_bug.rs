//! The `memcpy_kind_mismatch` misuse, really happening, through the raw driver API: a readback
//! written as an upload with the readback's pointers (`cuMemcpyHtoD(host_out, dev, ..)`, the
//! destination and source of the wrong function: DRACC 017/018's flipped pointers). The device
//! memory holds 7s; the program prints the status the driver returns and what the host buffer
//! holds afterwards. The fix (`memcpy_kind_mismatch_fixed`) reads back with `cuMemcpyDtoH`.

use std::ffi::c_void;

use cuda_lint_examples::open_gpu;
use cuda_lint_runtime::Error;
use cudarc::driver::sys::{self, CUdeviceptr};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

fn main() -> Result<(), Error> {
    println!("memcpy_kind_mismatch (bug): a readback through the upload function");
    let Some(ctx) = open_gpu("memcpy_kind_mismatch_bug")? else {
        return Ok(());
    };
    ctx.synchronize()?;
    let mut out = vec![0u32; N];
    unsafe {
        let mut dev: CUdeviceptr = 0;
        println!("  cuMemAlloc: {:?}", sys::cuMemAlloc_v2(&mut dev, BYTES));
        println!("  cuMemsetD32 (7s): {:?}", sys::cuMemsetD32_v2(dev, 7, N));
        let status = sys::cuMemcpyHtoD_v2(out.as_mut_ptr() as CUdeviceptr, dev as *const c_void, BYTES); // cuda_lint::memcpy_kind_mismatch
        println!("  cuMemcpyHtoD(host_out, dev): {status:?}");
        println!("  cuCtxSynchronize: {:?}", sys::cuCtxSynchronize());
        sys::cuMemFree_v2(dev);
    }
    let sevens = out.iter().filter(|&&v| v == 7).count();
    println!(
        "memcpy_kind_mismatch_bug: the host buffer holds {sevens} of {N} device values (first: {})",
        out[0]
    );
    Ok(())
}
