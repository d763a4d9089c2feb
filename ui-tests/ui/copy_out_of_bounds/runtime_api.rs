// copy_out_of_bounds through the runtime API's raw bindings (`cudarc::runtime::sys`): cudaMalloc,
// cudaMallocHost, cudaMemcpy with a cudaMemcpyKind, cudaMemset, cudaMemsetAsync. Counts built of
// literals, consts and `size_of`; sides of known size: constant cudaMalloc/cudaMallocHost,
// `vec![x; N]`, `[T; N]`. Near misses: exact and smaller counts, a runtime count, a Vec extended
// before the copy, a pointer from a parameter of a function nothing calls, a pointer allocated
// with one of two sizes (judged by the largest).

use cudarc::runtime::sys::{
    cudaDeviceSynchronize, cudaFree, cudaFreeHost, cudaMalloc, cudaMallocHost, cudaMemcpy,
    cudaMemcpyKind, cudaMemset, cudaMemsetAsync, cudaStream_t,
};
use std::ffi::c_void;
use std::mem::size_of;
use std::ptr;

const N: usize = 1024;
const BYTES: usize = N * size_of::<f32>();
const SRC_BYTES: usize = 4096;
const DST_BYTES: usize = 2048;

#[repr(C)]
#[derive(Clone, Copy)]
struct Particle {
    pos: [f32; 3],
    mass: f32,
}

// DRACC 015: the copy-in of twice the array.
fn fires_htod_twice_the_array() {
    let host = [1.0f32; N];
    let mut d: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = cudaMalloc(&mut d, BYTES);
        let _ = cudaMemcpy(d, host.as_ptr() as *const c_void, 2 * BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        //~^ copy_out_of_bounds
        let _ = cudaFree(d);
    }
}

// The device buffer holds 2 * N floats, the host Vec N.
fn fires_dtoh_into_smaller_vec() {
    let mut host = vec![0.0f32; N];
    let mut d: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = cudaMalloc(&mut d, 2 * BYTES);
        let _ = cudaMemset(d, 0, 2 * BYTES);
        let _ = cudaMemcpy(host.as_mut_ptr() as *mut c_void, d, 2 * BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        //~^ copy_out_of_bounds
        let _ = cudaFree(d);
    }
    println!("{}", host[0]);
}

fn fires_memset_past_the_end() {
    let mut d: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = cudaMalloc(&mut d, 100);
        let _ = cudaMemset(d, 0, 128);
        //~^ copy_out_of_bounds
        let _ = cudaFree(d);
    }
}

fn fires_dtod_consts_into_smaller() {
    let mut src: *mut c_void = ptr::null_mut();
    let mut dst: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = cudaMalloc(&mut src, SRC_BYTES);
        let _ = cudaMalloc(&mut dst, DST_BYTES);
        let _ = cudaMemset(src, 0, SRC_BYTES);
        let _ = cudaMemcpy(dst, src, SRC_BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice);
        //~^ copy_out_of_bounds
        let _ = cudaFree(dst);
        let _ = cudaFree(src);
    }
}

// One Particle allocated, four copied.
fn fires_htod_struct_array_into_one_element() {
    let host = [Particle { pos: [0.0; 3], mass: 1.0 }; 4];
    let mut d: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = cudaMalloc(&mut d, size_of::<Particle>());
        let _ = cudaMemcpy(d, host.as_ptr() as *const c_void, size_of::<[Particle; 4]>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        //~^ copy_out_of_bounds
        let _ = cudaFree(d);
    }
}

fn fires_memset_async_twice_the_buffer() {
    let mut d: *mut c_void = ptr::null_mut();
    let stream: cudaStream_t = ptr::null_mut();
    unsafe {
        let _ = cudaMalloc(&mut d, BYTES);
        let _ = cudaMemsetAsync(d, 0, 2 * BYTES, stream);
        //~^ copy_out_of_bounds
        let _ = cudaDeviceSynchronize();
        let _ = cudaFree(d);
    }
}

// The pinned destination holds 256 bytes, the copy is of 512.
fn fires_dtoh_into_small_pinned_buffer() {
    let mut h: *mut c_void = ptr::null_mut();
    let mut d: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = cudaMallocHost(&mut h, 256);
        let _ = cudaMalloc(&mut d, 512);
        let _ = cudaMemset(d, 0, 512);
        let _ = cudaMemcpy(h, d, 512, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        //~^ copy_out_of_bounds
        let _ = cudaFree(d);
        let _ = cudaFreeHost(h);
    }
}

fn ok_htod_exact_size() {
    let host = [1.0f32; N];
    let mut d: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = cudaMalloc(&mut d, BYTES);
        let _ = cudaMemcpy(d, host.as_ptr() as *const c_void, N * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        let _ = cudaFree(d);
    }
}

fn ok_dtoh_first_half() {
    let mut host = vec![0.0f32; N];
    let mut d: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = cudaMalloc(&mut d, 2 * BYTES);
        let _ = cudaMemset(d, 0, 2 * BYTES);
        let _ = cudaMemcpy(host.as_mut_ptr() as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        let _ = cudaFree(d);
    }
    println!("{}", host[0]);
}

fn ok_memset_count_from_args() {
    let count: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100);
    let mut d: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = cudaMalloc(&mut d, 100);
        let _ = cudaMemset(d, 0, count);
        let _ = cudaFree(d);
    }
}

// The buffer is allocated with one of two sizes; the copy fits the largest.
fn ok_two_allocation_sizes_judged_by_largest() {
    let host = vec![0.0f32; 2 * N];
    let wide = std::env::args().count() > 1;
    let mut d: *mut c_void = ptr::null_mut();
    unsafe {
        if wide {
            let _ = cudaMalloc(&mut d, 2 * BYTES);
        } else {
            let _ = cudaMalloc(&mut d, BYTES);
        }
        let _ = cudaMemcpy(d, host.as_ptr() as *const c_void, 2 * BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        let _ = cudaFree(d);
    }
}

// The Vec starts with N floats and is extended to 2 * N before the copy.
fn ok_htod_from_extended_vec() {
    let mut host = vec![0.0f32; N];
    host.extend_from_slice(&[1.0f32; N]);
    let mut d: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = cudaMalloc(&mut d, 2 * BYTES);
        let _ = cudaMemcpy(d, host.as_ptr() as *const c_void, 2 * BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        let _ = cudaFree(d);
    }
}

// The source comes from a caller no code in the crate is.
fn ok_dtoh_from_parameter(src: *const c_void) -> [u8; 64] {
    let mut host = [0u8; 64];
    unsafe {
        let _ = cudaMemcpy(host.as_mut_ptr() as *mut c_void, src, 64, cudaMemcpyKind::cudaMemcpyDeviceToHost);
    }
    host
}

fn ok_htod_struct_array_into_array_sized_buffer() {
    let host = [Particle { pos: [0.0; 3], mass: 1.0 }; 4];
    let mut d: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = cudaMalloc(&mut d, 4 * size_of::<Particle>());
        let _ = cudaMemcpy(d, host.as_ptr() as *const c_void, size_of::<[Particle; 4]>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        let _ = cudaFree(d);
    }
}

fn main() {}
