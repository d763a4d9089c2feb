//! case: near miss: a scratch buffer is grown inside the loop by freeing the old allocation before cuMemAlloc'ing the larger one, and freed after the loop
//! expect: none

use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use std::ffi::c_void;

pub fn checksum_messages(messages: &[Vec<u8>]) -> u64 {
    let ctx = CudaContext::new(0).unwrap();
    ctx.bind_to_thread().unwrap();
    let mut d_scratch: sys::CUdeviceptr = 0;
    let mut capacity = 0usize;
    let mut total = 0u64;
    for msg in messages {
        if msg.len() > capacity {
            unsafe {
                if d_scratch != 0 {
                    sys::cuMemFree_v2(d_scratch).result().unwrap();
                }
                sys::cuMemAlloc_v2(&mut d_scratch, msg.len()).result().unwrap();
            }
            capacity = msg.len();
        }
        if msg.is_empty() {
            continue;
        }
        let mut back = vec![0u8; msg.len()];
        unsafe {
            sys::cuMemcpyHtoD_v2(d_scratch, msg.as_ptr() as *const c_void, msg.len()).result().unwrap();
            sys::cuMemcpyDtoH_v2(back.as_mut_ptr() as *mut c_void, d_scratch, msg.len()).result().unwrap();
        }
        total += back.iter().map(|&b| b as u64).sum::<u64>();
    }
    if d_scratch != 0 {
        unsafe { sys::cuMemFree_v2(d_scratch).result().unwrap() };
    }
    total
}
