//! The `unallocated_pointer` misuse, really happening, through the raw driver API: the
//! result buffer's `cuMemAlloc` was lost in an edit, and its readback copies from the null
//! pointer it was initialised with (DRACC 008's shape). The program prints the status of the
//! readback and how many results arrived. The fix (`unallocated_pointer_fixed`) allocates it.

use std::ffi::c_void;

use cuda_lint_examples::open_gpu;
use cuda_lint_runtime::Error;
use cudarc::driver::sys::{self, CUdeviceptr};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

fn main() -> Result<(), Error> {
    println!("unallocated_pointer (bug): a readback from a pointer never allocated");
    let Some(ctx) = open_gpu("unallocated_pointer_bug")? else {
        return Ok(());
    };
    ctx.synchronize()?;
    let input = vec![7u32; N];
    let mut results = vec![0u32; N];
    unsafe {
        let mut d_in: CUdeviceptr = 0;
        let d_out: CUdeviceptr = 0;
        println!("  cuMemAlloc (input): {:?}", sys::cuMemAlloc_v2(&mut d_in, BYTES));
        let up = sys::cuMemcpyHtoD_v2(d_in, input.as_ptr() as *const c_void, BYTES);
        println!("  cuMemcpyHtoD (upload): {up:?}");
        let status = sys::cuMemcpyDtoH_v2(results.as_mut_ptr() as *mut c_void, d_out, BYTES); // cuda_lint::unallocated_pointer
        println!("  cuMemcpyDtoH (readback from d_out): {status:?}");
        sys::cuMemFree_v2(d_in);
    }
    let arrived = results.iter().filter(|&&v| v == 7).count();
    println!("unallocated_pointer_bug: {arrived} of {N} results arrived");
    Ok(())
}
