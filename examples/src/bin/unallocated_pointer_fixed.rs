//! The fix of `unallocated_pointer_bug`: the result buffer is allocated, and the device copies
//! the input into it before the readback.

use std::ffi::c_void;

use cuda_lint_examples::open_gpu;
use cuda_lint_runtime::Error;
use cudarc::driver::sys::{self, CUdeviceptr};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

fn main() -> Result<(), Error> {
    println!("unallocated_pointer (fixed): the result buffer is allocated");
    let Some(ctx) = open_gpu("unallocated_pointer_fixed")? else {
        return Ok(());
    };
    ctx.synchronize()?;
    let input = vec![7u32; N];
    let mut results = vec![0u32; N];
    unsafe {
        let mut d_in: CUdeviceptr = 0;
        let mut d_out: CUdeviceptr = 0;
        println!("  cuMemAlloc (input): {:?}", sys::cuMemAlloc_v2(&mut d_in, BYTES));
        println!("  cuMemAlloc (results): {:?}", sys::cuMemAlloc_v2(&mut d_out, BYTES));
        let up = sys::cuMemcpyHtoD_v2(d_in, input.as_ptr() as *const c_void, BYTES);
        println!("  cuMemcpyHtoD (upload): {up:?}");
        let dd = sys::cuMemcpyDtoD_v2(d_out, d_in, BYTES);
        println!("  cuMemcpyDtoD (input to results): {dd:?}");
        let status = sys::cuMemcpyDtoH_v2(results.as_mut_ptr() as *mut c_void, d_out, BYTES);
        println!("  cuMemcpyDtoH (readback from d_out): {status:?}");
        sys::cuMemFree_v2(d_out);
        sys::cuMemFree_v2(d_in);
    }
    let arrived = results.iter().filter(|&&v| v == 7).count();
    println!("unallocated_pointer_fixed: {arrived} of {N} results arrived");
    Ok(())
}
