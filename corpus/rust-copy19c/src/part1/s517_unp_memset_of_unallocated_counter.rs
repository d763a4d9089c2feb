//! case: two device counters are declared at 0; only d_sum gets a cuMemAlloc, but the reset memsets d_count, which is still 0
//! expect: unallocated_pointer=1

use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use std::ffi::c_void;
use std::mem::size_of;

const SLOTS: usize = 64;

pub fn reset_accumulators() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let mut d_sum: sys::CUdeviceptr = 0;
    let d_count: sys::CUdeviceptr = 0;
    let mut sums = [0.0f32; SLOTS];
    unsafe {
        sys::cuMemAlloc_v2(&mut d_sum, SLOTS * size_of::<f32>()).result()?;
        sys::cuMemsetD32_v2(d_sum, 0, SLOTS).result().expect("memset sums");
        sys::cuMemsetD32_v2(d_count, 0, SLOTS).result().expect("memset counts"); // EXPECT: unallocated_pointer
        sys::cuMemcpyDtoH_v2(sums.as_mut_ptr() as *mut c_void, d_sum, SLOTS * size_of::<f32>()).result().expect("readback");
        sys::cuMemFree_v2(d_sum).result()?;
    }
    println!("{:?}", &sums[..4]);
    Ok(())
}
