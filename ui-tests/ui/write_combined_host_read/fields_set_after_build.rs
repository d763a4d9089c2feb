// A constructor that builds its struct with null pointers, then fills the fields through
// `&mut me.field` (`cudaHostAlloc(&mut me.h_counters, ..)`): what the fields hold when it
// returns is what a method sees.
use std::ffi::{c_int, c_uint, c_void};
use std::ptr::null_mut;

const CUDA_HOST_ALLOC_WRITE_COMBINED: c_uint = 4;

unsafe extern "C" {
    fn cudaHostAlloc(p_host: *mut *mut c_void, size: usize, flags: c_uint) -> c_int;
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> c_int;
    fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: c_int) -> c_int;
}

struct Counters {
    device: *mut c_void,
    combined: *mut c_void,
    cached: *mut c_void,
    len: usize,
}

impl Counters {
    fn new(len: usize) -> Counters {
        let mut me = Counters { device: null_mut(), combined: null_mut(), cached: null_mut(), len };
        unsafe {
            cudaMalloc(&mut me.device, len * 8);
            cudaHostAlloc(&mut me.combined, len * 8, CUDA_HOST_ALLOC_WRITE_COMBINED);
            cudaHostAlloc(&mut me.cached, len * 8, 0);
        }
        me
    }

    fn fires_total_read_from_write_combined_memory(&mut self) -> u64 {
        unsafe { cudaMemcpy(self.combined, self.device, self.len * 8, 2) };
        unsafe { std::slice::from_raw_parts(self.combined as *const u64, self.len) }.iter().sum() //~ write_combined_host_read
    }

    fn ok_total_read_from_cached_pinned_memory(&mut self) -> u64 {
        unsafe { cudaMemcpy(self.cached, self.device, self.len * 8, 2) };
        unsafe { std::slice::from_raw_parts(self.cached as *const u64, self.len) }.iter().sum()
    }
}

fn main() {}
