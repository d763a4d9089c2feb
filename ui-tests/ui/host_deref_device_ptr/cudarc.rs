// cudarc hands out raw device pointers (`device_ptr`, `leak`, `driver::result` allocations):
// numbers the host must not dereference.
#![cfg_attr(cuda_lint, allow(cuda_lint::write_combined_host_read))] // readbacks into cudarc's `alloc_pinned`: another lint's subject
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::sync::Arc;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut};

const N: usize = 1024;

fn fires_leaked_slice_read_on_the_host() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(N)?;
    let ptr = dev.leak();
    let first = unsafe { *(ptr as *const f32) };
    //~^ host_deref_device_ptr
    Ok(first)
}

fn fires_device_ptr_made_into_a_slice(stream: &Arc<CudaStream>) -> Result<f32, DriverError> {
    let dev = stream.alloc_zeros::<f32>(N)?;
    let (ptr, _record) = dev.device_ptr(stream);
    let view = unsafe { std::slice::from_raw_parts(ptr as *const f32, N) };
    //~^ host_deref_device_ptr
    Ok(view.iter().sum())
}

fn fires_device_ptr_mut_written_by_the_host(stream: &Arc<CudaStream>) -> Result<(), DriverError> {
    let mut dev = stream.alloc_zeros::<u32>(N)?;
    let (ptr, _record) = dev.device_ptr_mut(stream);
    unsafe { *(ptr as *mut u32) = 7 };
    //~^ host_deref_device_ptr
    Ok(())
}

fn fires_raw_allocation_copied_out_on_the_host() -> Result<Vec<f32>, DriverError> {
    let _ctx = CudaContext::new(0)?;
    let dptr = unsafe { result::malloc_sync(N * 4)? };
    let mut host = vec![0.0f32; N];
    unsafe { std::ptr::copy_nonoverlapping(dptr as *const f32, host.as_mut_ptr(), N) };
    //~^ host_deref_device_ptr
    Ok(host)
}

fn fires_view_pointer_read_in_a_loop(stream: &Arc<CudaStream>) -> Result<f32, DriverError> {
    let dev = stream.alloc_zeros::<f32>(N)?;
    let view = dev.slice(0..N / 2);
    let (ptr, _record) = view.device_ptr(stream);
    let base = ptr as *const f32;
    let mut total = 0.0;
    for i in 0..N / 2 {
        total += unsafe { *base.add(i) };
        //~^ host_deref_device_ptr
    }
    Ok(total)
}

struct Buffers {
    dev: CudaSlice<f32>,
}

fn read_first(ptr: u64) -> f32 {
    unsafe { *(ptr as *const f32) }
}

fn fires_pointer_from_a_struct_field_read_by_a_helper(stream: &Arc<CudaStream>, bufs: &Buffers) -> Result<f32, DriverError> {
    let (ptr, _record) = bufs.dev.device_ptr(stream);
    let _ = read_first(ptr);
    //~^ host_deref_device_ptr
    Ok(0.0)
}

fn ok_pointer_printed_and_compared(stream: &Arc<CudaStream>) -> Result<(), DriverError> {
    let dev = stream.alloc_zeros::<f32>(N)?;
    let (ptr, _record) = dev.device_ptr(stream);
    println!("buffer at {ptr:#x}");
    assert!(ptr != 0);
    Ok(())
}

fn ok_pointer_handed_to_a_raw_copy(stream: &Arc<CudaStream>) -> Result<(), DriverError> {
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut host = vec![0.0f32; N];
    let (ptr, _record) = dev.device_ptr(stream);
    unsafe { result::memcpy_dtoh_sync(&mut host, ptr)? };
    Ok(())
}

fn ok_leaked_and_upgraded_again(stream: &Arc<CudaStream>) -> Result<CudaSlice<f32>, DriverError> {
    let dev = stream.alloc_zeros::<f32>(N)?;
    let ptr = dev.leak();
    Ok(unsafe { stream.upgrade_device_ptr::<f32>(ptr, N) })
}

fn ok_pinned_pointer_read_after_synchronize() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    stream.memcpy_dtoh(&dev, &mut host)?;
    stream.synchronize()?;
    let ptr = host.as_ptr()?;
    Ok(unsafe { *ptr })
}

fn ok_unified_memory_read_on_the_host() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let unified = unsafe { ctx.alloc_unified::<f32>(N, true)? };
    Ok(unified.as_slice()?[0])
}

fn ok_pointer_offset_as_a_number(stream: &Arc<CudaStream>) -> Result<u64, DriverError> {
    let dev = stream.alloc_zeros::<f32>(N)?;
    let (ptr, _record) = dev.device_ptr(stream);
    let second_half = ptr + (N as u64 / 2) * 4;
    Ok(second_half)
}

fn ok_raw_allocation_freed_without_being_read() -> Result<(), DriverError> {
    let _ctx = CudaContext::new(0)?;
    let dptr = unsafe { result::malloc_sync(N * 4)? };
    unsafe { result::memset_d8_sync(dptr, 0, N * 4)? };
    unsafe { result::free_sync(dptr) }
}

fn ok_pointer_stored_in_a_struct(stream: &Arc<CudaStream>, bufs: &Buffers) -> Result<[u64; 1], DriverError> {
    let (ptr, _record) = bufs.dev.device_ptr(stream);
    Ok([ptr])
}

mod cublas_ffi {
    unsafe extern "C" {
        pub fn cublasSasum_v2(handle: *mut std::ffi::c_void, n: i32, x: *const f32, incx: i32, result: *mut f32) -> u32;
    }
}

// lintcheck FP-1 (cudarc's cuBLAS tests): a C library's function given a device pointer uses
// it on the device.
fn ok_device_pointer_passed_to_a_c_library(handle: *mut std::ffi::c_void) -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let x = stream.alloc_zeros::<f32>(N)?;
    let mut sum = 0.0f32;
    let (ptr, _record) = x.device_ptr(&stream);
    unsafe { cublas_ffi::cublasSasum_v2(handle, N as i32, ptr as *const f32, 1, &mut sum) };
    stream.synchronize()?;
    Ok(sum)
}

// lintcheck FP-1: the same through cudarc's cuBLAS wrapper (another crate's function).
fn ok_device_pointer_passed_to_cudarc_cublas(handle: cudarc::cublas::sys::cublasHandle_t) -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let x = stream.alloc_zeros::<f32>(N)?;
    let mut sum = 0.0f32;
    let (ptr, _record) = x.device_ptr(&stream);
    unsafe { cudarc::cublas::result::sasum(handle, N as i32, ptr as *const f32, 1, &mut sum).unwrap() };
    stream.synchronize()?;
    Ok(sum)
}

// lintcheck FP-3 (`CudaSlice::leak`): a raw pointer to the handle, not to the memory it owns.
fn ok_slice_handle_dropped_in_place(stream: &Arc<CudaStream>) -> Result<(), DriverError> {
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut keep = std::mem::ManuallyDrop::new(dev);
    unsafe { std::ptr::drop_in_place(&mut *keep as *mut CudaSlice<f32>) };
    Ok(())
}

// lintcheck FP-4 (cudarc's tests): the host iterates over its own array of device handles.
fn ok_iterating_over_device_handles(stream: &Arc<CudaStream>) -> Result<(), DriverError> {
    let parts = [stream.alloc_zeros::<f32>(2)?, stream.alloc_zeros::<f32>(2)?];
    let mut whole = stream.alloc_zeros::<f32>(4)?;
    let mut offset = 0;
    for part in parts.iter() {
        let mut dst = whole.slice_mut(offset..offset + part.len());
        stream.memcpy_dtod(part, &mut dst)?;
        offset += part.len();
    }
    stream.synchronize()
}

fn main() {}
