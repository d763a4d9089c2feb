//! case: near miss: a trace buffer is allocated only when a command-line flag is set, and every copy of it is guarded by the same flag
//! expect: none

use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use std::ffi::c_void;
use std::mem::size_of;

const TRACE_WORDS: usize = 512;

pub fn main_like() {
    let trace = std::env::args().any(|a| a == "--trace");
    let ctx = CudaContext::new(0).unwrap();
    ctx.bind_to_thread().unwrap();
    let mut d_trace: sys::CUdeviceptr = 0;
    if trace {
        unsafe {
            sys::cuMemAlloc_v2(&mut d_trace, TRACE_WORDS * size_of::<u32>()).result().unwrap();
            sys::cuMemsetD32_v2(d_trace, 0xdead_beef, TRACE_WORDS).result().unwrap();
        }
    }
    // ... work ...
    if trace {
        let mut words = vec![0u32; TRACE_WORDS];
        unsafe {
            sys::cuMemcpyDtoH_v2(words.as_mut_ptr() as *mut c_void, d_trace, TRACE_WORDS * size_of::<u32>()).result().unwrap();
            sys::cuMemFree_v2(d_trace).result().unwrap();
        }
        println!("trace[0] = {:#x}", words[0]);
    }
}
