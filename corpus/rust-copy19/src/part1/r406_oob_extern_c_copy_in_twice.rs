//! case: the crate's own extern "C" runtime declarations: an input array of N ints is copied in with 2*N*sizeof(int) bytes (DRACC 015), overrunning both the host array and the cudaMalloc'd buffer
//! expect: copy_out_of_bounds=1
use std::ffi::c_void;
use std::ptr;

const N: usize = 2048;
const H2D: i32 = 1;
const D2H: i32 = 2;

#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> i32;
    fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: i32) -> i32;
    fn cudaFree(dev_ptr: *mut c_void) -> i32;
}

pub fn echo_through_device() -> i32 {
    let input = [7i32; N];
    let mut output = [0i32; N];
    let mut d_a: *mut c_void = ptr::null_mut();
    let mut err = 0;
    unsafe {
        err |= cudaMalloc(&mut d_a, N * std::mem::size_of::<i32>());
        err |= cudaMemcpy(d_a, input.as_ptr() as *const c_void, 2 * N * std::mem::size_of::<i32>(), H2D); // EXPECT: copy_out_of_bounds
        err |= cudaMemcpy(output.as_mut_ptr() as *mut c_void, d_a, N * std::mem::size_of::<i32>(), D2H);
        err |= cudaFree(d_a);
    }
    if err != 0 {
        return -1;
    }
    output.iter().sum()
}
