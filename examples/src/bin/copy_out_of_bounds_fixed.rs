//! The fix of `copy_out_of_bounds_bug`: the weight buffer is allocated for `N` floats, in
//! bytes, so the upload fits.

use std::ffi::c_void;

use cuda_lint_examples::open_gpu;
use cuda_lint_runtime::Error;
use cudarc::driver::sys::{self, CUdeviceptr};

const N: usize = 1 << 20;

fn main() -> Result<(), Error> {
    println!("copy_out_of_bounds (fixed): the buffer holds what the upload copies");
    let Some(ctx) = open_gpu("copy_out_of_bounds_fixed")? else {
        return Ok(());
    };
    ctx.synchronize()?;
    let weights = vec![1.0f32; N];
    let mut neighbour_back = vec![0u32; N];
    unsafe {
        let mut d_weights: CUdeviceptr = 0;
        let mut d_neighbour: CUdeviceptr = 0;
        let bytes = N * std::mem::size_of::<f32>();
        println!(
            "  cuMemAlloc (N * 4 bytes): {:?}",
            sys::cuMemAlloc_v2(&mut d_weights, bytes)
        );
        println!(
            "  cuMemAlloc (neighbour): {:?}",
            sys::cuMemAlloc_v2(&mut d_neighbour, N * 4)
        );
        println!(
            "  cuMemsetD32 (neighbour, 7s): {:?}",
            sys::cuMemsetD32_v2(d_neighbour, 7, N)
        );
        let status = sys::cuMemcpyHtoD_v2(d_weights, weights.as_ptr() as *const c_void, bytes);
        println!("  cuMemcpyHtoD (N * 4 bytes): {status:?}");
        println!(
            "  cuMemcpyDtoH (neighbour): {:?}",
            sys::cuMemcpyDtoH_v2(neighbour_back.as_mut_ptr() as *mut c_void, d_neighbour, N * 4)
        );
        sys::cuMemFree_v2(d_neighbour);
        sys::cuMemFree_v2(d_weights);
    }
    let sevens = neighbour_back.iter().filter(|&&v| v == 7).count();
    println!("copy_out_of_bounds_fixed: the neighbouring buffer still holds {sevens} of {N} 7s");
    Ok(())
}
