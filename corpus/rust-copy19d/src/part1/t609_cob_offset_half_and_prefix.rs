//! case: a double-buffered ring uploads each half at its offset (d + HALF) and reads back only the valid prefix; every count fits what is left after the offset.
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, DriverError};
use std::mem::size_of;

const SLOTS: usize = 8192;
const HALF: usize = SLOTS / 2;
const RING_BYTES: usize = SLOTS * size_of::<u32>();
const VALID: usize = 1000;

pub fn fill_ring() -> Result<Vec<u32>, DriverError> {
    let _ctx = CudaContext::new(0)?;
    let front = vec![1u32; HALF];
    let back = vec![2u32; HALF];
    let mut head = vec![0u32; VALID];
    let mut d_ring: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_ring, RING_BYTES).result()?;
        let a = sys::cuMemcpyHtoD_v2(d_ring, front.as_ptr() as *const _, HALF * size_of::<u32>());
        let b = sys::cuMemcpyHtoD_v2(d_ring + (HALF * size_of::<u32>()) as u64, back.as_ptr() as *const _, HALF * size_of::<u32>());
        let c = sys::cuMemcpyDtoH_v2(head.as_mut_ptr() as *mut _, d_ring, VALID * size_of::<u32>());
        sys::cuMemFree_v2(d_ring);
        a.result()?;
        b.result()?;
        c.result()?;
    }
    Ok(head)
}
