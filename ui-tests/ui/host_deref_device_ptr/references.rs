// A Rust reference into device memory (`&*d`, `&(*d).field`, and the one `println!("{}", *d)`
// hands to its formatter) lets the host read or write device memory: making it is the bug.
// Seed 002's three examples, the "correct" ones included, print `d_data[i]` on the host. A use
// through such a reference is reported too, as a read through a slice made of device memory is.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak, cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys as drv;
use cudarc::runtime::sys::{self, cudaMemcpyKind, cudaStream_t};

const SIZE: usize = 1024;

#[repr(C)]
struct Pair {
    a: i32,
    b: i32,
}

unsafe fn device_ints() -> *mut i32 {
    let mut d: *mut c_void = null_mut();
    unsafe { sys::cudaMalloc(&mut d, SIZE * 4) };
    d as *mut i32
}

fn fires_seed_002_example_2_printf_loop_after_the_sync() {
    unsafe {
        let mut h_data: *mut c_void = null_mut();
        sys::cudaMallocHost(&mut h_data, SIZE * 4);
        let d_data = device_ints();
        sys::cudaMemcpyAsync(d_data.cast(), h_data, SIZE * 4, cudaMemcpyKind::cudaMemcpyHostToDevice, null_mut());
        sys::cudaDeviceSynchronize();
        for i in 0..SIZE {
            println!("Value at index {}: {}", i, *d_data.add(i));
            //~^ host_deref_device_ptr
        }
        sys::cudaFree(d_data.cast());
        sys::cudaFreeHost(h_data);
    }
}

fn fires_seed_002_example_3_with_a_stream() {
    unsafe {
        let mut stream: cudaStream_t = null_mut();
        sys::cudaStreamCreate(&mut stream);
        let d_data = device_ints();
        sys::cudaStreamSynchronize(stream);
        for i in 0..SIZE {
            print!("{} ", *d_data.add(i));
            //~^ host_deref_device_ptr
        }
    }
}

fn fires_format_of_a_driver_allocation() -> String {
    unsafe {
        let mut dptr: drv::CUdeviceptr = 0;
        drv::cuMemAlloc_v2(&mut dptr, 64);
        let p = dptr as *const f32;
        format!("{:?}", *p)
        //~^ host_deref_device_ptr
    }
}

fn fires_reference_kept_in_a_variable() -> i32 {
    unsafe {
        let d = device_ints();
        let first: &i32 = &*d;
        //~^ host_deref_device_ptr
        first.abs()
    }
}

fn fires_mutable_reference_to_a_field() {
    unsafe {
        let mut d: *mut c_void = null_mut();
        sys::cudaMalloc(&mut d, std::mem::size_of::<Pair>());
        let pair = d as *mut Pair;
        let b: &mut i32 = &mut (*pair).b;
        //~^ host_deref_device_ptr
        *b = 1;
    }
}

fn fires_assert_on_device_memory() {
    unsafe {
        let d = device_ints();
        assert_eq!(*d, 0);
        //~^ host_deref_device_ptr
    }
}

fn ok_the_address_is_printed() {
    unsafe {
        let d = device_ints();
        println!("{:p} {:?}", d, d);
    }
}

fn ok_pinned_memory_printed_after_the_copy() {
    unsafe {
        let d = device_ints();
        let mut h: *mut c_void = null_mut();
        sys::cudaMallocHost(&mut h, SIZE * 4);
        sys::cudaMemcpy(h, d.cast(), SIZE * 4, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        let h = h as *const i32;
        for i in 0..SIZE {
            println!("{}", *h.add(i));
        }
    }
}

fn ok_copied_into_a_vec_first() {
    unsafe {
        let d = device_ints();
        let mut host = vec![0i32; SIZE];
        sys::cudaMemcpy(host.as_mut_ptr().cast(), d.cast(), SIZE * 4, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        println!("{}", host[0]);
    }
}

fn ok_pointer_arithmetic_without_a_reference() -> *const i32 {
    unsafe {
        let d = device_ints();
        let field = &raw const *d.add(4);
        field
    }
}

fn ok_reference_into_host_memory_from_malloc() -> i32 {
    unsafe {
        let h = libc::malloc(64) as *const i32;
        let r = &*h;
        *r
    }
}

fn main() {
    fires_seed_002_example_2_printf_loop_after_the_sync();
    fires_seed_002_example_3_with_a_stream();
    let _ = fires_format_of_a_driver_allocation();
    let _ = fires_reference_kept_in_a_variable();
    fires_mutable_reference_to_a_field();
    fires_assert_on_device_memory();
    ok_the_address_is_printed();
    ok_pinned_memory_printed_after_the_copy();
    ok_copied_into_a_vec_first();
    let _ = ok_pointer_arithmetic_without_a_reference();
    let _ = ok_reference_into_host_memory_from_malloc();
}
