// Releasing through the driver API, through cudarc's `sys` and a crate's own `extern "C"` block:
// device memory by `cuMemFree`, pinned host memory by `cuMemFreeHost`, the C heap by `free`,
// a module's global by nothing, and only registered memory unregistered.
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUmodule, CUstream};

const BYTES: usize = 1 << 20;

mod ffi {
    pub type CUresult = i32;
    unsafe extern "C" {
        pub fn cuMemAllocHost_v2(pp: *mut *mut std::ffi::c_void, bytes: usize) -> CUresult;
        pub fn cuMemFree_v2(dptr: u64) -> CUresult;
        pub fn cuMemFreeHost(p: *mut std::ffi::c_void) -> CUresult;
    }
}

fn fires_pinned_host_memory_freed_as_device_memory() {
    unsafe {
        let mut host: *mut c_void = null_mut();
        sys::cuMemAllocHost_v2(&mut host, BYTES);
        sys::cuMemFree_v2(host as CUdeviceptr);
        //~^ mismatched_free
    }
}

fn fires_device_memory_freed_as_host_memory() {
    unsafe {
        let mut dev: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut dev, BYTES);
        sys::cuMemFreeHost(dev as *mut c_void);
        //~^ mismatched_free
    }
}

fn fires_pinned_memory_given_to_libc_free() {
    unsafe {
        let mut host: *mut c_void = null_mut();
        sys::cuMemHostAlloc(&mut host, BYTES, sys::CU_MEMHOSTALLOC_PORTABLE);
        libc::free(host);
        //~^ mismatched_free
    }
}

fn fires_module_global_freed(module: CUmodule) {
    unsafe {
        let mut global: CUdeviceptr = 0;
        let mut bytes = 0usize;
        sys::cuModuleGetGlobal_v2(&mut global, &mut bytes, module, c"table".as_ptr());
        sys::cuMemFree_v2(global);
        //~^ mismatched_free
    }
}

fn fires_malloc_memory_unregistered_without_registering() {
    unsafe {
        let host = libc::malloc(BYTES);
        sys::cuMemHostUnregister(host);
        //~^ mismatched_free
        libc::free(host);
    }
}

fn fires_extern_block_free_of_pinned_memory() {
    unsafe {
        let mut host: *mut c_void = null_mut();
        ffi::cuMemAllocHost_v2(&mut host, BYTES);
        ffi::cuMemFree_v2(host as u64);
        //~^ mismatched_free
    }
}

fn fires_async_free_of_pinned_memory(stream: CUstream) {
    unsafe {
        let mut host: *mut c_void = null_mut();
        sys::cuMemAllocHost_v2(&mut host, BYTES);
        sys::cuMemFreeAsync(host as CUdeviceptr, stream);
        //~^ mismatched_free
    }
}

fn ok_each_released_by_its_own_function() {
    unsafe {
        let mut host: *mut c_void = null_mut();
        let mut dev: CUdeviceptr = 0;
        sys::cuMemAllocHost_v2(&mut host, BYTES);
        sys::cuMemAlloc_v2(&mut dev, BYTES);
        sys::cuMemcpyHtoD_v2(dev, host, BYTES);
        sys::cuMemFree_v2(dev);
        sys::cuMemFreeHost(host);
    }
}

fn ok_registered_malloc_memory_unregistered_then_freed() {
    unsafe {
        let host = libc::malloc(BYTES);
        sys::cuMemHostRegister_v2(host, BYTES, 0);
        sys::cuMemHostUnregister(host);
        libc::free(host);
    }
}

fn ok_async_allocation_freed_with_cu_mem_free_after_the_stream(stream: CUstream) {
    // Allowed: cuMemFree takes stream-ordered memory too (it does not wait for it).
    unsafe {
        let mut dev: CUdeviceptr = 0;
        sys::cuMemAllocAsync(&mut dev, BYTES, stream);
        sys::cuMemsetD8Async(dev, 0, BYTES, stream);
        sys::cuStreamSynchronize(stream);
        sys::cuMemFree_v2(dev);
    }
}

fn ok_managed_memory_freed_with_cu_mem_free() {
    unsafe {
        let mut managed: CUdeviceptr = 0;
        sys::cuMemAllocManaged(&mut managed, BYTES, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32);
        sys::cuMemFree_v2(managed);
    }
}

fn ok_module_global_left_to_its_module(module: CUmodule) {
    unsafe {
        let mut global: CUdeviceptr = 0;
        let mut bytes = 0usize;
        sys::cuModuleGetGlobal_v2(&mut global, &mut bytes, module, c"table".as_ptr());
        sys::cuMemsetD8_v2(global, 0, bytes);
        sys::cuModuleUnload(module);
    }
}

fn ok_extern_block_pinned_memory_freed_as_host_memory() {
    unsafe {
        let mut host: *mut c_void = null_mut();
        ffi::cuMemAllocHost_v2(&mut host, BYTES);
        ffi::cuMemFreeHost(host);
    }
}

fn ok_pointer_from_the_caller(p: CUdeviceptr) {
    // What it is, is the caller's to know.
    unsafe { sys::cuMemFree_v2(p) };
}

fn fires_async_allocation_freed_while_the_kernel_may_run(stream: CUstream) {
    // cuMemFree of stream-ordered memory does not wait (cuda-oxide PR #89): missing_sync.
    unsafe {
        let mut dev: CUdeviceptr = 0;
        sys::cuMemAllocAsync(&mut dev, BYTES, stream);
        sys::cuMemsetD8Async(dev, 0, BYTES, stream);
        sys::cuMemFree_v2(dev);
        //~^ missing_sync
    }
}

/// A `Vec`'s memory is Rust's allocator's: never registered here, it cannot be unregistered...
fn fires_vec_unregistered_without_registering() {
    let mut scores = vec![0i32; 1024];
    unsafe {
        sys::cuMemHostUnregister(scores.as_mut_ptr().cast()); //~ mismatched_free
    }
}

/// Registered first, it is unregistered rightly; a struct's field registered in its builder
/// too.
struct Batch {
    reads: Vec<u32>,
}

impl Batch {
    fn new(n: usize) -> Batch {
        let mut reads = vec![0u32; n];
        unsafe { sys::cuMemHostRegister_v2(reads.as_mut_ptr().cast(), n * 4, 0) };
        Batch { reads }
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        unsafe { sys::cuMemHostUnregister(self.reads.as_mut_ptr().cast()) };
    }
}

fn ok_vec_registered_then_unregistered() {
    let mut reads = vec![0u32; 1024];
    unsafe {
        sys::cuMemHostRegister_v2(reads.as_mut_ptr().cast(), 4096, 0);
        sys::cuMemHostUnregister(reads.as_mut_ptr().cast());
    }
}

/// The runtime layer's `Context::alloc` is `cuMemAlloc`: a buffer given up with `into_raw` is
/// released with `cuMemFree`...
fn ok_runtime_layer_buffer_given_up_and_freed(ctx: &cuda_lint_runtime::Context) -> Result<(), cuda_lint_runtime::Error> {
    let buf = ctx.alloc::<f32>(1024)?;
    let raw = buf.into_raw();
    unsafe { sys::cuMemFree_v2(raw.as_raw()) };
    Ok(())
}

/// ... not as host memory.
fn fires_runtime_layer_buffer_given_up_and_freed_as_host_memory(
    ctx: &cuda_lint_runtime::Context,
) -> Result<(), cuda_lint_runtime::Error> {
    let buf = ctx.alloc::<f32>(1024)?;
    let raw = buf.into_raw();
    unsafe { sys::cuMemFreeHost(raw.as_raw() as *mut c_void) }; //~ mismatched_free
    Ok(())
}

/// The same through a struct: the field a builder filled with a `Vec` and never registered is
/// unregistered in `Drop`.
struct Scores {
    scores: Vec<i32>,
}

impl Scores {
    fn new(n: usize) -> Scores {
        Scores { scores: vec![0; n] }
    }
}

impl Drop for Scores {
    fn drop(&mut self) {
        unsafe { sys::cuMemHostUnregister(self.scores.as_mut_ptr().cast()) }; //~ mismatched_free
    }
}

fn main() {}
