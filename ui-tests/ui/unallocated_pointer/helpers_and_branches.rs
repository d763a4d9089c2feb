// unallocated_pointer in shapes that cross the API families: a copy or memset inside a helper the
// case calls with a 0 pointer (reported at the call in the case), device pointers kept in struct
// fields, copies in loops, an allocation made into the wrong variable. Near misses: fields
// allocated by an init function called first, a helper that returns an allocation, allocation
// before the loop, allocation on both branches, a pointer from a parameter of a function
// nothing calls.

use cudarc::driver::sys::{self, CUdeviceptr};
use std::ffi::c_void;
use std::mem::size_of;

const N: usize = 1 << 16;
const BYTES: usize = N * size_of::<f32>();
const CHUNK: usize = 1024;
const CHUNK_BYTES: usize = CHUNK * size_of::<f32>();

struct Buffers {
    input: CUdeviceptr,
    output: CUdeviceptr,
}

fn upload(dst: CUdeviceptr, host: &[f32]) {
    unsafe {
        let _ = sys::cuMemcpyHtoD_v2(dst, host.as_ptr() as *const c_void, size_of_val(host));
    }
}

fn clear_output(bufs: &Buffers) {
    unsafe {
        let _ = sys::cuMemsetD32_v2(bufs.output, 0, N);
    }
}

fn init(bufs: &mut Buffers) {
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut bufs.input, BYTES);
        let _ = sys::cuMemAlloc_v2(&mut bufs.output, BYTES);
    }
}

fn free_all(bufs: &Buffers) {
    unsafe {
        let _ = sys::cuMemFree_v2(bufs.output);
        let _ = sys::cuMemFree_v2(bufs.input);
    }
}

fn make_buffer(bytes: usize) -> CUdeviceptr {
    let mut d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d, bytes);
    }
    d
}

// The helper copies into the 0 pointer it is given: reported at the call.
fn fires_upload_helper_zero_dptr() {
    let host = vec![1.0f32; N];
    let d: CUdeviceptr = 0;
    upload(d, &host);
    //~^ unallocated_pointer
}

// Only the input field was allocated; the copy goes to the output field.
fn fires_struct_field_left_zero() {
    let host = vec![1.0f32; N];
    let mut bufs = Buffers { input: 0, output: 0 };
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut bufs.input, BYTES);
        let _ = sys::cuMemcpyHtoD_v2(bufs.output, host.as_ptr() as *const c_void, BYTES);
        //~^ unallocated_pointer
        let _ = sys::cuMemFree_v2(bufs.input);
    }
}

// A helper memsets a field nothing allocated: reported at the call.
fn fires_helper_memset_of_zero_field() {
    let mut bufs = Buffers { input: 0, output: 0 };
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut bufs.input, BYTES);
        let _ = sys::cuMemsetD32_v2(bufs.input, 0, N);
    }
    clear_output(&bufs);
    //~^ unallocated_pointer
    unsafe {
        let _ = sys::cuMemFree_v2(bufs.input);
    }
}

// The copy in the loop body: one finding, at the copy.
fn fires_copy_in_loop() {
    let host = vec![1.0f32; N];
    let d: CUdeviceptr = 0;
    for chunk in host.chunks(CHUNK) {
        unsafe {
            let _ = sys::cuMemcpyHtoD_v2(d, chunk.as_ptr() as *const c_void, CHUNK_BYTES);
            //~^ unallocated_pointer
        }
    }
}

// The allocation went to d_in; d_out, the destination, is never allocated.
fn fires_allocated_into_other_variable() {
    let host = vec![1.0f32; N];
    let mut d_in: CUdeviceptr = 0;
    let d_out: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d_in, BYTES);
        let _ = sys::cuMemcpyHtoD_v2(d_in, host.as_ptr() as *const c_void, BYTES);
        let _ = sys::cuMemcpyDtoD_v2(d_out, d_in, BYTES);
        //~^ unallocated_pointer
        let _ = sys::cuMemFree_v2(d_in);
    }
}

fn ok_upload_helper_allocated_dptr() {
    let host = vec![1.0f32; N];
    let d = make_buffer(BYTES);
    upload(d, &host);
    unsafe {
        let _ = sys::cuMemFree_v2(d);
    }
}

// Both fields are allocated by an init function the case calls first.
fn ok_struct_fields_allocated_by_init() {
    let host = vec![1.0f32; N];
    let mut bufs = Buffers { input: 0, output: 0 };
    init(&mut bufs);
    unsafe {
        let _ = sys::cuMemcpyHtoD_v2(bufs.input, host.as_ptr() as *const c_void, BYTES);
    }
    clear_output(&bufs);
    free_all(&bufs);
}

fn ok_allocated_before_loop() {
    let host = vec![1.0f32; N];
    let mut d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d, CHUNK_BYTES);
    }
    for chunk in host.chunks(CHUNK) {
        unsafe {
            let _ = sys::cuMemcpyHtoD_v2(d, chunk.as_ptr() as *const c_void, CHUNK_BYTES);
        }
    }
    unsafe {
        let _ = sys::cuMemFree_v2(d);
    }
}

// Allocated on both branches, with different sizes.
fn ok_allocated_on_both_branches() {
    let mut d: CUdeviceptr = 0;
    unsafe {
        if std::env::args().count() > 2 {
            let _ = sys::cuMemAlloc_v2(&mut d, 2 * BYTES);
        } else {
            let _ = sys::cuMemAlloc_v2(&mut d, BYTES);
        }
        let _ = sys::cuMemsetD32_v2(d, 0, N);
        let _ = sys::cuMemFree_v2(d);
    }
}

// The pointer comes from a caller no code in the crate is.
fn ok_memset_parameter(d: CUdeviceptr) {
    unsafe {
        let _ = sys::cuMemsetD32_v2(d, 0, N);
    }
}

fn main() {}
