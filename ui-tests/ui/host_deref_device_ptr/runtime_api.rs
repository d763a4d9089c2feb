// `cudaMalloc` returns a `void*` the host can cast and dereference without complaint.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak, cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys::{self, cudaMemcpyKind};

const N: usize = 1024;
const BYTES: usize = N * 4;

fn fires_cuda_malloc_pointer_read() -> f32 {
    unsafe {
        let mut d: *mut c_void = null_mut();
        sys::cudaMalloc(&mut d, BYTES);
        *(d as *const f32)
        //~^ host_deref_device_ptr
    }
}

fn fires_cuda_malloc_pointer_filled_on_the_host() {
    unsafe {
        let mut d: *mut c_void = null_mut();
        sys::cudaMalloc(&mut d, BYTES);
        let values = std::slice::from_raw_parts_mut(d as *mut f32, N);
        //~^ host_deref_device_ptr
        values.fill(1.0);
    }
}

fn fires_async_allocation_copied_with_copy_nonoverlapping(out: &mut [f32]) {
    unsafe {
        let mut d: *mut c_void = null_mut();
        sys::cudaMallocAsync(&mut d, BYTES, null_mut());
        std::ptr::copy_nonoverlapping(d as *const f32, out.as_mut_ptr(), N);
        //~^ host_deref_device_ptr
    }
}

fn alloc_device(bytes: usize) -> *mut f32 {
    let mut d: *mut c_void = null_mut();
    unsafe { sys::cudaMalloc(&mut d, bytes) };
    d as *mut f32
}

fn fires_pointer_from_a_helper_indexed() -> f32 {
    let d = alloc_device(BYTES);
    unsafe { *d.add(10) }
    //~^ host_deref_device_ptr
}

fn ok_managed_memory() -> f32 {
    unsafe {
        let mut d: *mut c_void = null_mut();
        sys::cudaMallocManaged(&mut d, BYTES, 1);
        *(d as *const f32)
    }
}

fn ok_pinned_memory() -> f32 {
    unsafe {
        let mut h: *mut c_void = null_mut();
        sys::cudaMallocHost(&mut h, BYTES);
        *(h as *const f32)
    }
}

fn ok_copied_to_the_host_first() -> f32 {
    unsafe {
        let d = alloc_device(BYTES);
        let mut out = vec![0.0f32; N];
        sys::cudaMemcpy(out.as_mut_ptr() as *mut c_void, d as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        out[0]
    }
}

fn ok_pointer_checked_and_freed() {
    unsafe {
        let d = alloc_device(BYTES);
        assert!(!d.is_null());
        sys::cudaFree(d as *mut c_void);
    }
}

// cudarc's `runtime::result` layer: `malloc_sync` is `cudaMalloc`. Pointer arithmetic on the
// address (`wrapping_byte_add`, `is_null`) reads nothing; writing through it does.
fn fires_result_malloc_sync_pointer_patched_on_the_host(count: u32) {
    use cudarc::runtime::result;
    unsafe {
        if let Ok(dev) = result::malloc_sync(64) {
            *(dev as *mut u32) = count; //~ host_deref_device_ptr
        }
    }
}

fn ok_result_malloc_sync_pointer_arithmetic(slot: usize) -> *mut std::ffi::c_void {
    use cudarc::runtime::result;
    unsafe {
        match result::malloc_sync(1 << 20) {
            Ok(dev) if !dev.is_null() => dev.wrapping_byte_add(slot * 256).byte_add(4),
            _ => std::ptr::null_mut(),
        }
    }
}

fn main() {}
