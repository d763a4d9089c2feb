//! case: near miss: cuMemsetD8 given the byte count and cuMemsetD32 given the word count of the same buffer, both exactly its size
//! expect: none

use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use std::ffi::c_void;
use std::mem::size_of;

const WORDS: usize = 4096;
const BYTES: usize = WORDS * size_of::<u32>();

pub fn clear_twice() -> u32 {
    let ctx = CudaContext::new(0).unwrap();
    ctx.bind_to_thread().unwrap();
    let mut d_flags: sys::CUdeviceptr = 0;
    let mut host = [0u32; WORDS];
    unsafe {
        sys::cuMemAlloc_v2(&mut d_flags, BYTES).result().unwrap();
        sys::cuMemsetD8_v2(d_flags, 0, BYTES).result().unwrap();
        sys::cuMemsetD32_v2(d_flags, 0xffff_ffff, BYTES / size_of::<u32>()).result().unwrap();
        sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d_flags, BYTES).result().unwrap();
        sys::cuMemFree_v2(d_flags).result().unwrap();
    }
    host.iter().fold(0, |a, b| a ^ b)
}
