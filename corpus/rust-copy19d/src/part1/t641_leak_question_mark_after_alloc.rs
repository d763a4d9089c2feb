//! case: a checksum helper cuMemAlloc's a device buffer, then returns early with `?` when the upload fails, before the cuMemFree at the end.
//! expect: device_memory_leak=1
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, DriverError};
use std::mem::size_of;

const WORDS: usize = 1 << 16;

pub fn device_roundtrip_checksum(data: &[u32; WORDS]) -> Result<u64, DriverError> {
    let _ctx = CudaContext::new(0)?;
    let mut back = vec![0u32; WORDS];
    let mut d_buf: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_buf, WORDS * size_of::<u32>()).result()?; // EXPECT: device_memory_leak
        sys::cuMemcpyHtoD_v2(d_buf, data.as_ptr() as *const _, WORDS * size_of::<u32>()).result()?;
        let down = sys::cuMemcpyDtoH_v2(back.as_mut_ptr() as *mut _, d_buf, WORDS * size_of::<u32>());
        sys::cuMemFree_v2(d_buf);
        down.result()?;
    }
    Ok(back.iter().map(|&w| w as u64).sum())
}
