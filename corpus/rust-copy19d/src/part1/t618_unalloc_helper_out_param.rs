//! case: a crate helper `alloc_device(&mut ptr, bytes)` cuMemAlloc's through its out-parameter; the caller starts the pointer at 0 and uses it after the helper.
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::{CudaContext, DriverError};
use std::mem::size_of;

fn alloc_device(ptr: &mut CUdeviceptr, bytes: usize) -> CUresult {
    unsafe { sys::cuMemAlloc_v2(ptr, bytes) }
}

const TILE: usize = 64 * 64;

pub fn stage_tile(tile: &[f32; TILE]) -> Result<Vec<f32>, DriverError> {
    let _ctx = CudaContext::new(0)?;
    let mut d_tile: CUdeviceptr = 0;
    alloc_device(&mut d_tile, TILE * size_of::<f32>()).result()?;
    let mut back = vec![0.0f32; TILE];
    unsafe {
        let up = sys::cuMemcpyHtoD_v2(d_tile, tile.as_ptr() as *const _, TILE * size_of::<f32>());
        let down = sys::cuMemcpyDtoH_v2(back.as_mut_ptr() as *mut _, d_tile, TILE * size_of::<f32>());
        sys::cuMemFree_v2(d_tile);
        up.result()?;
        down.result()?;
    }
    Ok(back)
}
