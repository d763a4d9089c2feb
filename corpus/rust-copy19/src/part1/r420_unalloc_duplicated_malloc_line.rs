//! case: own extern "C" runtime bindings: a copy-pasted cudaMalloc line allocates d_in twice instead of d_accum, so the first d_in allocation is lost (leak) and d_accum is still null when cudaMemset clears it
//! expect: unallocated_pointer=1, device_memory_leak=1
use std::ffi::c_void;
use std::ptr;

const N: usize = 512;
const BYTES: usize = N * 4;
const H2D: i32 = 1;
const D2H: i32 = 2;

unsafe extern "C" {
    fn cudaMalloc(p: *mut *mut c_void, size: usize) -> i32;
    fn cudaMemset(p: *mut c_void, value: i32, count: usize) -> i32;
    fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: i32) -> i32;
    fn cudaFree(p: *mut c_void) -> i32;
}

pub fn prepare(input: &[f32; N]) -> Result<Vec<f32>, i32> {
    let mut d_in: *mut c_void = ptr::null_mut();
    let mut d_accum: *mut c_void = ptr::null_mut();
    let mut echo = vec![0.0f32; N];
    let mut err = 0;
    unsafe {
        err |= cudaMalloc(&mut d_in, BYTES); // EXPECT: device_memory_leak
        err |= cudaMalloc(&mut d_in, BYTES);
        err |= cudaMemset(d_accum, 0, BYTES); // EXPECT: unallocated_pointer
        err |= cudaMemcpy(d_in, input.as_ptr() as *const c_void, BYTES, H2D);
        err |= cudaMemcpy(echo.as_mut_ptr() as *mut c_void, d_in, BYTES, D2H);
        err |= cudaFree(d_accum);
        err |= cudaFree(d_in);
    }
    if err != 0 {
        return Err(err);
    }
    Ok(echo)
}
