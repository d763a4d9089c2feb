// The runtime API: `cudaFree` for `cudaMalloc*` memory, `cudaFreeHost` for `cudaMallocHost`/
// `cudaHostAlloc` memory, nothing for a `__device__` symbol's address.
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys::{self, cudaStream_t};

const BYTES: usize = 1 << 20;

fn fires_cuda_free_of_cuda_malloc_host_memory() {
    unsafe {
        let mut host: *mut c_void = null_mut();
        sys::cudaMallocHost(&mut host, BYTES);
        sys::cudaFree(host);
        //~^ mismatched_free
    }
}

fn fires_cuda_free_host_of_device_memory() {
    unsafe {
        let mut dev: *mut c_void = null_mut();
        sys::cudaMalloc(&mut dev, BYTES);
        sys::cudaFreeHost(dev);
        //~^ mismatched_free
    }
}

fn fires_symbol_address_freed(symbol: *const c_void) {
    unsafe {
        let mut global: *mut c_void = null_mut();
        sys::cudaGetSymbolAddress(&mut global, symbol);
        sys::cudaFree(global);
        //~^ mismatched_free
    }
}

fn fires_cuda_host_alloc_memory_given_to_free() {
    unsafe {
        let mut host: *mut c_void = null_mut();
        sys::cudaHostAlloc(&mut host, BYTES, 0);
        libc::free(host);
        //~^ mismatched_free
    }
}

fn fires_cuda_host_unregister_of_cuda_malloc_host_memory() {
    unsafe {
        let mut host: *mut c_void = null_mut();
        sys::cudaMallocHost(&mut host, BYTES);
        sys::cudaHostUnregister(host);
        //~^ mismatched_free
        sys::cudaFreeHost(host);
    }
}

fn ok_runtime_pairs(stream: cudaStream_t) {
    unsafe {
        let (mut host, mut dev, mut pooled): (*mut c_void, *mut c_void, *mut c_void) = (null_mut(), null_mut(), null_mut());
        sys::cudaHostAlloc(&mut host, BYTES, 0);
        sys::cudaMalloc(&mut dev, BYTES);
        sys::cudaMallocAsync(&mut pooled, BYTES, stream);
        sys::cudaFreeAsync(pooled, stream);
        sys::cudaStreamSynchronize(stream);
        sys::cudaFree(dev);
        sys::cudaFreeHost(host);
    }
}

fn ok_registered_memory_unregistered() {
    unsafe {
        let mut buf = vec![0u8; BYTES];
        sys::cudaHostRegister(buf.as_mut_ptr().cast(), BYTES, 0);
        sys::cudaHostUnregister(buf.as_mut_ptr().cast());
    }
}

fn ok_managed_memory_freed_with_cuda_free() {
    unsafe {
        let mut managed: *mut c_void = null_mut();
        sys::cudaMallocManaged(&mut managed, BYTES, 1);
        sys::cudaFree(managed);
    }
}

fn ok_malloc_async_memory_freed_with_cuda_free_after_a_sync(stream: cudaStream_t) {
    unsafe {
        let mut dev: *mut c_void = null_mut();
        sys::cudaMallocAsync(&mut dev, BYTES, stream);
        sys::cudaMemsetAsync(dev, 0, BYTES, stream);
        sys::cudaStreamSynchronize(stream);
        sys::cudaFree(dev);
    }
}

// cudarc's `runtime::result` layer wraps the same calls: `free_sync` is `cudaFree`.
fn fires_result_free_sync_of_cuda_malloc_host_memory() {
    use cudarc::runtime::result;
    unsafe {
        let mut host: *mut c_void = null_mut();
        sys::cudaMallocHost(&mut host, BYTES);
        let _ = result::free_sync(host);
        //~^ mismatched_free
    }
}

fn ok_result_malloc_sync_freed_with_free_sync() {
    use cudarc::runtime::result;
    unsafe {
        if let Ok(dev) = result::malloc_sync(BYTES) {
            let _ = result::free_sync(dev);
        }
    }
}

fn main() {}
