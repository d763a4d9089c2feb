// copy_out_of_bounds in shapes that cross the API families: a copy inside a helper the case
// calls (reported at the call in the case), a buffer kept in a struct field, copies in loops,
// consts built with `size_of::<T>()`, and a pointer allocated with different sizes on two
// branches (judged by the largest: it fires only when every allocation is too small).

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::runtime::sys::{cudaFree, cudaMalloc, cudaMemcpy, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;
use std::ptr;

const ROWS: usize = 64;
const ROW_BYTES: usize = ROWS * size_of::<f64>();
const MAT_BYTES: usize = ROWS * ROW_BYTES;
const SMALL: usize = 1 << 10;
const MEDIUM: usize = 1 << 12;
const LARGE: usize = 1 << 14;
const CHUNK: usize = 256;

struct DeviceBuffer {
    ptr: CUdeviceptr,
    bytes: usize,
}

fn upload(dst: CUdeviceptr, host: &[f64], bytes: usize) {
    unsafe {
        let _ = sys::cuMemcpyHtoD_v2(dst, host.as_ptr() as *const c_void, bytes);
    }
}

fn device_buffer(bytes: usize) -> DeviceBuffer {
    let mut ptr: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut ptr, bytes);
    }
    DeviceBuffer { ptr, bytes }
}

fn release(buf: DeviceBuffer) {
    unsafe {
        let _ = sys::cuMemFree_v2(buf.ptr);
    }
}

// DRACC 009 through a helper: a matrix uploaded into a buffer sized for one row.
fn fires_upload_helper_matrix_into_row() {
    let host = vec![0.0f64; ROWS * ROWS];
    let mut d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d, ROW_BYTES);
    }
    upload(d, &host, MAT_BYTES);
    //~^ copy_out_of_bounds
    unsafe {
        let _ = sys::cuMemFree_v2(d);
    }
}

// The buffer lives in a struct field; the memset covers twice its size.
fn fires_struct_field_memset_past_the_end() {
    let buf = device_buffer(ROW_BYTES);
    unsafe {
        let _ = sys::cuMemsetD8_v2(buf.ptr, 0, 2 * ROW_BYTES);
        //~^ copy_out_of_bounds
    }
    release(buf);
}

// The same too-large copy on every iteration: one finding, at the copy.
fn fires_copy_in_loop() {
    let host = vec![0.0f32; LARGE];
    let mut d: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = cudaMalloc(&mut d, SMALL);
        for _ in 0..4 {
            let _ = cudaMemcpy(d, host.as_ptr() as *const c_void, MEDIUM, cudaMemcpyKind::cudaMemcpyHostToDevice);
            //~^ copy_out_of_bounds
        }
        let _ = cudaFree(d);
    }
}

// SMALL on one branch, MEDIUM on the other: a copy of LARGE is too large for both.
fn fires_every_branch_allocation_too_small() {
    let host = vec![0u8; LARGE];
    let mut d: CUdeviceptr = 0;
    unsafe {
        if std::env::args().count() > 1 {
            let _ = sys::cuMemAlloc_v2(&mut d, MEDIUM);
        } else {
            let _ = sys::cuMemAlloc_v2(&mut d, SMALL);
        }
        let _ = sys::cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, LARGE);
        //~^ copy_out_of_bounds
        let _ = sys::cuMemFree_v2(d);
    }
}

// A constant expression with size_of: the source array holds ROWS f32, the count is of f64.
fn fires_size_of_wrong_type() {
    let host = [0.0f32; ROWS];
    let mut d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d, ROW_BYTES);
        let _ = sys::cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, ROWS * size_of::<f64>());
        //~^ copy_out_of_bounds
        let _ = sys::cuMemFree_v2(d);
    }
}

fn ok_upload_helper_one_row() {
    let host = vec![0.0f64; ROWS];
    let mut d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d, ROW_BYTES);
    }
    upload(d, &host, ROW_BYTES);
    unsafe {
        let _ = sys::cuMemFree_v2(d);
    }
}

fn ok_struct_field_memset_its_size() {
    let buf = device_buffer(MAT_BYTES);
    unsafe {
        let _ = sys::cuMemsetD8_v2(buf.ptr, 0, buf.bytes);
        let _ = sys::cuMemsetD8_v2(buf.ptr, 0, MAT_BYTES);
    }
    release(buf);
}

// SMALL on one branch, LARGE on the other: judged by the largest, the copy of LARGE fits.
fn ok_branch_allocations_judged_by_largest() {
    let host = vec![0u8; LARGE];
    let mut d: CUdeviceptr = 0;
    unsafe {
        if std::env::args().count() > 1 {
            let _ = sys::cuMemAlloc_v2(&mut d, LARGE);
        } else {
            let _ = sys::cuMemAlloc_v2(&mut d, SMALL);
        }
        let _ = sys::cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, LARGE);
        let _ = sys::cuMemFree_v2(d);
    }
}

// The loop copies CHUNK bytes at each offset of a buffer of 4 * CHUNK.
fn ok_chunks_in_loop() {
    let host = vec![0u8; 4 * CHUNK];
    let mut d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d, 4 * CHUNK);
        for i in 0..4 {
            let off = i * CHUNK;
            let _ = sys::cuMemcpyHtoD_v2(d + off as u64, host[off..].as_ptr() as *const c_void, CHUNK);
        }
        let _ = sys::cuMemFree_v2(d);
    }
}

fn ok_size_of_matching_type() {
    let host = [0.0f64; ROWS];
    let mut d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d, ROW_BYTES);
        let _ = sys::cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, ROWS * size_of::<f64>());
        let _ = sys::cuMemFree_v2(d);
    }
}

fn main() {}
