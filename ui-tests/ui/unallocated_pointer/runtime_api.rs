// unallocated_pointer through the runtime API's raw bindings (`cudarc::runtime::sys`): a pointer
// initialized with `ptr::null_mut()` and never given to cudaMalloc, or a `static mut` pointer
// nothing assigns, used by cudaMemcpy (either side, with a cudaMemcpyKind), cudaMemset or
// cudaMemsetAsync. Near misses: cudaMalloc into it first, an allocating helper the crate defines
// and calls, an init function that assigns the static, the address handed to an extern function
// that is not a CUDA API, cudaFree of null, allocation and use under the same condition.

use cudarc::runtime::sys::{
    cudaDeviceSynchronize, cudaError_t, cudaFree, cudaMalloc, cudaMemcpy, cudaMemcpyKind,
    cudaMemset, cudaMemsetAsync, cudaStream_t,
};
use std::ffi::{c_int, c_void};
use std::mem::size_of;
use std::ptr;

// A plugin's entry points, implemented elsewhere (not CUDA APIs).
unsafe extern "C" {
    fn plugin_device_buffer(out: *mut *mut c_void, bytes: usize) -> c_int;
    fn plugin_release(p: *mut c_void);
}

const N: usize = 2048;
const BYTES: usize = N * size_of::<f32>();

static mut D_MATRIX: *mut c_void = ptr::null_mut();
static mut D_LUT: *mut c_void = ptr::null_mut();

fn device_alloc(p: &mut *mut c_void, bytes: usize) -> cudaError_t {
    unsafe { cudaMalloc(p, bytes) }
}

fn init_lut() {
    unsafe {
        let _ = cudaMalloc(&raw mut D_LUT, BYTES);
    }
}

fn fires_htod_into_null_mut() {
    let host = vec![1.0f32; N];
    let d: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = cudaMemcpy(d, host.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        //~^ unallocated_pointer
    }
}

fn fires_memset_null_mut() {
    let d: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = cudaMemset(d, 0, BYTES);
        //~^ unallocated_pointer
    }
}

fn fires_dtoh_from_null_mut() {
    let mut host = vec![0.0f32; N];
    let d: *mut f32 = ptr::null_mut();
    unsafe {
        let _ = cudaMemcpy(host.as_mut_ptr() as *mut c_void, d as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        //~^ unallocated_pointer
    }
    println!("{}", host[0]);
}

// A static pointer nothing assigns and whose address nothing takes: zero-initialized.
fn fires_static_never_assigned() {
    let host = vec![1.0f32; N];
    unsafe {
        let _ = cudaMemcpy(D_MATRIX, host.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        //~^ unallocated_pointer
    }
}

// DRACC 008: d_a and d_c are allocated, d_b's cudaMalloc was left out.
fn fires_one_of_three_allocations_missing() {
    let a = vec![1.0f32; N];
    let b = vec![2.0f32; N];
    let mut d_a: *mut c_void = ptr::null_mut();
    let d_b: *mut c_void = ptr::null_mut();
    let mut d_c: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = cudaMalloc(&mut d_a, BYTES);
        let _ = cudaMalloc(&mut d_c, BYTES);
        let _ = cudaMemcpy(d_a, a.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        let _ = cudaMemcpy(d_b, b.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        //~^ unallocated_pointer
        let _ = cudaMemcpy(d_c, d_a, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice);
        let _ = cudaFree(d_c);
        let _ = cudaFree(d_a);
    }
}

fn fires_memset_async_null_mut() {
    let d: *mut c_void = ptr::null_mut();
    let stream: cudaStream_t = ptr::null_mut();
    unsafe {
        let _ = cudaMemsetAsync(d, 0, BYTES, stream);
        //~^ unallocated_pointer
        let _ = cudaDeviceSynchronize();
    }
}

fn ok_htod_after_cuda_malloc() {
    let host = vec![1.0f32; N];
    let mut d: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = cudaMalloc(&mut d, BYTES);
        let _ = cudaMemcpy(d, host.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        let _ = cudaFree(d);
    }
}

// cudaFree(NULL) does nothing: not a use.
fn ok_cuda_free_null() {
    let d: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = cudaFree(d);
    }
}

// Allocated through a helper the crate defines and calls.
fn ok_allocated_through_helper() {
    let mut d: *mut c_void = ptr::null_mut();
    let _ = device_alloc(&mut d, BYTES);
    unsafe {
        let _ = cudaMemset(d, 0, BYTES);
        let _ = cudaFree(d);
    }
}

// The static is allocated by an init function the case calls first.
fn ok_static_assigned_by_init() {
    init_lut();
    let host = vec![0.25f32; N];
    unsafe {
        let _ = cudaMemcpy(D_LUT, host.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        let _ = cudaFree(D_LUT);
        D_LUT = ptr::null_mut();
    }
}

// The address goes to a function whose body is not visible: it may allocate.
fn ok_address_taken_by_plugin() {
    let host = vec![1.0f32; N];
    let mut d: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = plugin_device_buffer(&mut d, BYTES);
        let _ = cudaMemcpy(d, host.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        plugin_release(d);
    }
}

// Allocated when a flag is set, and used under the same flag.
fn ok_allocated_under_same_condition() {
    let host = vec![1.0f32; N];
    let upload = std::env::args().any(|a| a == "--upload");
    let mut d: *mut c_void = ptr::null_mut();
    unsafe {
        if upload {
            let _ = cudaMalloc(&mut d, BYTES);
        }
        if upload {
            let _ = cudaMemcpy(d, host.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
            let _ = cudaFree(d);
        }
    }
}

fn main() {}
