// copy_out_of_bounds through the driver API's raw bindings: `cudarc::driver::sys` and the
// crate's own `extern "C"` block (cuMemAlloc_v2, cuMemcpyHtoD_v2, cuMemcpyDtoH_v2,
// cuMemcpyDtoD_v2, cuMemsetD8/D16/D32_v2, whose counts are in elements of 1, 2 and 4 bytes).
// Sides of known size: constant cuMemAlloc, `vec![x; N]`, `[T; N]`, a scalar. Near misses:
// exact and smaller counts, memsets counted in elements, runtime counts, a Vec grown before the
// copy, a pointer from a parameter of a function nothing calls.

use cudarc::driver::sys::{self, CUdeviceptr};
use std::ffi::c_void;
use std::mem::size_of;

#[link(name = "cuda")]
unsafe extern "C" {
    fn cuMemAlloc_v2(dptr: *mut u64, bytesize: usize) -> u32;
    fn cuMemFree_v2(dptr: u64) -> u32;
    fn cuMemcpyHtoD_v2(dst: u64, src: *const c_void, byte_count: usize) -> u32;
    fn cuMemcpyDtoD_v2(dst: u64, src: u64, byte_count: usize) -> u32;
    fn cuMemsetD8_v2(dst: u64, uc: u8, n: usize) -> u32;
}

const N: usize = 128;
const VEC_BYTES: usize = N * size_of::<f32>();
const MAT_BYTES: usize = N * N * size_of::<f32>();

// DRACC 009: a matrix copied into a buffer allocated for a vector.
fn fires_htod_matrix_into_vector_buffer() {
    let host = vec![1.0f32; N * N];
    let mut d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d, VEC_BYTES);
        let _ = sys::cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, MAT_BYTES);
        //~^ copy_out_of_bounds
        let _ = sys::cuMemFree_v2(d);
    }
}

// DRACC 016: the copy-out of twice the result.
fn fires_dtoh_twice_the_result() {
    let mut host = vec![0.0f32; N];
    let mut d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d, VEC_BYTES);
        let _ = sys::cuMemsetD32_v2(d, 0, N);
        let _ = sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, 2 * VEC_BYTES);
        //~^ copy_out_of_bounds
        let _ = sys::cuMemFree_v2(d);
    }
    println!("{}", host[0]);
}

// cuMemsetD32 counts 4-byte elements: N of them is 4 * N bytes, the buffer holds N bytes.
fn fires_memset_d32_count_in_bytes() {
    let mut d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d, N);
        let _ = sys::cuMemsetD32_v2(d, 0, N);
        //~^ copy_out_of_bounds
        let _ = sys::cuMemFree_v2(d);
    }
}

// cuMemsetD16 of 1000 elements is 2000 bytes.
fn fires_memset_d16_past_the_end() {
    let mut d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d, 1000);
        let _ = sys::cuMemsetD16_v2(d, 0, 1000);
        //~^ copy_out_of_bounds
        let _ = sys::cuMemFree_v2(d);
    }
}

// The destination is a scalar: 4 bytes, the count 64.
fn fires_dtoh_into_scalar() {
    let mut flag: u32 = 0;
    let mut d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d, 64);
        let _ = sys::cuMemsetD8_v2(d, 0, 64);
        let _ = sys::cuMemcpyDtoH_v2(&mut flag as *mut u32 as *mut c_void, d, 64);
        //~^ copy_out_of_bounds
        let _ = sys::cuMemFree_v2(d);
    }
    println!("{flag}");
}

// Own extern block: the source, a stack array of 16 f64 (128 bytes), is read for 256 bytes.
fn fires_own_extern_htod_source_array_too_small() {
    let host = [0.5f64; 16];
    let mut d: u64 = 0;
    unsafe {
        let _ = cuMemAlloc_v2(&mut d, 32 * size_of::<f64>());
        let _ = cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, 32 * size_of::<f64>());
        //~^ copy_out_of_bounds
        let _ = cuMemFree_v2(d);
    }
}

// Own extern block: device-to-device into a smaller allocation.
fn fires_own_extern_dtod_into_smaller() {
    let mut big: u64 = 0;
    let mut small: u64 = 0;
    unsafe {
        let _ = cuMemAlloc_v2(&mut big, 4096);
        let _ = cuMemAlloc_v2(&mut small, 1024);
        let _ = cuMemsetD8_v2(big, 0, 4096);
        let _ = cuMemcpyDtoD_v2(small, big, 4096);
        //~^ copy_out_of_bounds
        let _ = cuMemFree_v2(small);
        let _ = cuMemFree_v2(big);
    }
}

fn ok_htod_exact_size() {
    let host = vec![1.0f32; N];
    let mut d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d, N * size_of::<f32>());
        let _ = sys::cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, N * size_of::<f32>());
        let _ = sys::cuMemFree_v2(d);
    }
}

// The same memset as above, on a buffer of N 4-byte elements.
fn ok_memset_d32_counts_elements() {
    let mut d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d, N * size_of::<u32>());
        let _ = sys::cuMemsetD32_v2(d, 0, N);
        let _ = sys::cuMemFree_v2(d);
    }
}

fn ok_dtoh_count_from_args() {
    let count: usize = std::env::args().count() * 4096;
    let mut host = vec![0u8; 4096];
    let mut d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d, 4096);
        let _ = sys::cuMemsetD8_v2(d, 0, 4096);
        let _ = sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, count);
        let _ = sys::cuMemFree_v2(d);
    }
    println!("{}", host[0]);
}

// The Vec was created with N elements, then grown to 2 * N before the copy.
fn ok_dtoh_into_resized_vec() {
    let mut host = vec![0.0f32; N];
    host.resize(2 * N, 0.0);
    let mut d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d, 2 * VEC_BYTES);
        let _ = sys::cuMemsetD32_v2(d, 0, 2 * N);
        let _ = sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, 2 * VEC_BYTES);
        let _ = sys::cuMemFree_v2(d);
    }
    println!("{}", host[N]);
}

// The destination comes from a caller no code in the crate is.
fn ok_htod_into_parameter(dst: CUdeviceptr) {
    let host = [0.0f32; N * N];
    unsafe {
        let _ = sys::cuMemcpyHtoD_v2(dst, host.as_ptr() as *const c_void, MAT_BYTES);
    }
}

fn ok_own_extern_dtod_half() {
    let mut a: u64 = 0;
    let mut b: u64 = 0;
    unsafe {
        let _ = cuMemAlloc_v2(&mut a, 1024);
        let _ = cuMemAlloc_v2(&mut b, 1024);
        let _ = cuMemsetD8_v2(a, 0, 1024);
        let _ = cuMemcpyDtoD_v2(b, a, 512);
        let _ = cuMemFree_v2(b);
        let _ = cuMemFree_v2(a);
    }
}

// The Vec starts with 16 bytes and is extended to 64 before the copy.
fn ok_own_extern_htod_from_extended_vec() {
    let mut host = vec![0u8; 16];
    host.extend(std::iter::repeat(7u8).take(48));
    let mut d: u64 = 0;
    unsafe {
        let _ = cuMemAlloc_v2(&mut d, 64);
        let _ = cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, 64);
        let _ = cuMemFree_v2(d);
    }
}

fn main() {}
