//! The `copy_out_of_bounds` misuse, really happening, through the raw driver API: a weight
//! table of `N` floats uploaded into a buffer allocated for `N` bytes (the `size_of::<f32>()`
//! factor forgotten, DRACC 015's shape). A second buffer, allocated right after, holds 7s; the
//! program prints the status of the upload and what the second buffer holds afterwards. The
//! fix (`copy_out_of_bounds_fixed`) allocates `N * size_of::<f32>()` bytes.

use std::ffi::c_void;

use cuda_lint_examples::open_gpu;
use cuda_lint_runtime::Error;
use cudarc::driver::sys::{self, CUdeviceptr};

const N: usize = 1 << 20;

fn main() -> Result<(), Error> {
    println!("copy_out_of_bounds (bug): an upload four times larger than its buffer");
    let Some(ctx) = open_gpu("copy_out_of_bounds_bug")? else {
        return Ok(());
    };
    ctx.synchronize()?;
    let weights = vec![1.0f32; N];
    let mut neighbour_back = vec![0u32; N];
    unsafe {
        let mut d_weights: CUdeviceptr = 0;
        let mut d_neighbour: CUdeviceptr = 0;
        println!("  cuMemAlloc (N bytes): {:?}", sys::cuMemAlloc_v2(&mut d_weights, N));
        println!(
            "  cuMemAlloc (neighbour): {:?}",
            sys::cuMemAlloc_v2(&mut d_neighbour, N * 4)
        );
        println!(
            "  cuMemsetD32 (neighbour, 7s): {:?}",
            sys::cuMemsetD32_v2(d_neighbour, 7, N)
        );
        let src = weights.as_ptr() as *const c_void;
        let bytes = N * std::mem::size_of::<f32>();
        let status = sys::cuMemcpyHtoD_v2(d_weights, src, bytes); // cuda_lint::copy_out_of_bounds
        println!("  cuMemcpyHtoD (N * 4 bytes): {status:?}");
        println!(
            "  cuMemcpyDtoH (neighbour): {:?}",
            sys::cuMemcpyDtoH_v2(neighbour_back.as_mut_ptr() as *mut c_void, d_neighbour, N * 4)
        );
        sys::cuMemFree_v2(d_neighbour);
        sys::cuMemFree_v2(d_weights);
    }
    let sevens = neighbour_back.iter().filter(|&&v| v == 7).count();
    println!("copy_out_of_bounds_bug: the neighbouring buffer still holds {sevens} of {N} 7s");
    Ok(())
}
