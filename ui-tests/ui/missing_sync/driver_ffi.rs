// The driver API through raw bindings: cudarc's `driver::sys`, and a crate's own `extern "C"`
// block. Pointers are numbers and raw pointers; streams are `CUstream`s.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak, cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUresult, CUstream};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

/// What a crate that writes its own bindings declares.
mod ffi {
    #![allow(non_camel_case_types)]
    pub type CUdeviceptr = u64;
    pub type CUstream = *mut std::ffi::c_void;
    pub type CUresult = i32;
    unsafe extern "C" {
        pub fn cuStreamCreate(stream: *mut CUstream, flags: u32) -> CUresult;
        pub fn cuStreamSynchronize(stream: CUstream) -> CUresult;
        pub fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytes: usize) -> CUresult;
        pub fn cuMemHostAlloc(pp: *mut *mut std::ffi::c_void, bytes: usize, flags: u32) -> CUresult;
        pub fn cuMemcpyDtoHAsync_v2(dst: *mut std::ffi::c_void, src: CUdeviceptr, bytes: usize, stream: CUstream) -> CUresult;
        pub fn cuMemcpyHtoDAsync_v2(dst: CUdeviceptr, src: *const std::ffi::c_void, bytes: usize, stream: CUstream) -> CUresult;
    }
}

unsafe fn stream() -> CUstream {
    let mut s: CUstream = null_mut();
    unsafe { sys::cuStreamCreate(&mut s, 0) };
    s
}

unsafe fn device() -> CUdeviceptr {
    let mut d: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) };
    d
}

fn fires_pinned_read_before_stream_synchronize() -> f32 {
    unsafe {
        let s = stream();
        let d = device();
        let mut host: *mut c_void = null_mut();
        sys::cuMemAllocHost_v2(&mut host, BYTES);
        sys::cuMemcpyDtoHAsync_v2(host, d, BYTES, s);
        let out = std::slice::from_raw_parts(host as *const f32, N);
        let first = out[0];
        //~^ missing_sync
        sys::cuStreamSynchronize(s);
        first
    }
}

fn fires_own_bindings_pinned_read_too_early() -> f32 {
    unsafe {
        let mut s: ffi::CUstream = null_mut();
        ffi::cuStreamCreate(&mut s, 0);
        let mut d: ffi::CUdeviceptr = 0;
        ffi::cuMemAlloc_v2(&mut d, BYTES);
        let mut host: *mut c_void = null_mut();
        ffi::cuMemHostAlloc(&mut host, BYTES, 0);
        ffi::cuMemcpyDtoHAsync_v2(host, d, BYTES, s);
        let first = *(host as *const f32);
        //~^ missing_sync
        ffi::cuStreamSynchronize(s);
        first
    }
}

fn fires_own_bindings_upload_buffer_refilled() {
    unsafe {
        let mut s: ffi::CUstream = null_mut();
        ffi::cuStreamCreate(&mut s, 0);
        let mut d: ffi::CUdeviceptr = 0;
        ffi::cuMemAlloc_v2(&mut d, BYTES);
        let mut host: *mut c_void = null_mut();
        ffi::cuMemHostAlloc(&mut host, BYTES, 0);
        let staging = std::slice::from_raw_parts_mut(host as *mut f32, N);
        for batch in 0..4 {
            staging.fill(batch as f32);
            //~^ missing_sync
            ffi::cuMemcpyHtoDAsync_v2(d, host, BYTES, s);
        }
        ffi::cuStreamSynchronize(s);
    }
}

fn fires_synchronized_on_one_branch_only(check: bool) -> f32 {
    unsafe {
        let s = stream();
        let d = device();
        let mut host: *mut c_void = null_mut();
        sys::cuMemHostAlloc(&mut host, BYTES, 0);
        sys::cuMemcpyDtoHAsync_v2(host, d, BYTES, s);
        if check {
            sys::cuStreamSynchronize(s);
        }
        let first = *(host as *const f32);
        //~^ missing_sync
        first
    }
}

fn fires_registered_vec_read_before_synchronize() -> f32 {
    unsafe {
        let s = stream();
        let d = device();
        let mut out = vec![0.0f32; N];
        sys::cuMemHostRegister_v2(out.as_mut_ptr() as *mut c_void, BYTES, 0);
        sys::cuMemcpyDtoHAsync_v2(out.as_mut_ptr() as *mut c_void, d, BYTES, s);
        let first = out[0];
        //~^ missing_sync
        sys::cuStreamSynchronize(s);
        first
    }
}

fn fires_freed_on_another_stream_while_in_use() {
    unsafe {
        let copy = stream();
        let other = stream();
        let d = device();
        let mut host: *mut c_void = null_mut();
        sys::cuMemAllocHost_v2(&mut host, BYTES);
        sys::cuMemcpyHtoDAsync_v2(d, host, BYTES, copy);
        sys::cuMemFreeAsync(d, other);
        //~^ missing_sync
        sys::cuStreamSynchronize(copy);
    }
}

// The kernel's source is not visible: what it writes is not seen, so this is
// `unverified`'s (allow by default, tests in ui/unverified/), not this lint's.
fn unseen_managed_memory_read_while_the_kernel_runs(kernel: sys::CUfunction) -> f32 {
    unsafe {
        let s = stream();
        let mut data: CUdeviceptr = 0;
        sys::cuMemAllocManaged(&mut data, BYTES, 1);
        let mut n = N as u32;
        let mut params = [&mut data as *mut CUdeviceptr as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cuLaunchKernel(kernel, 1024, 1, 1, 1024, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        let first = *(data as *const f32);
        sys::cuStreamSynchronize(s);
        first
    }
}

struct Download {
    stream: CUstream,
    dev: CUdeviceptr,
    host: *mut f32,
}

impl Download {
    unsafe fn new() -> Download {
        let mut host: *mut c_void = null_mut();
        unsafe { sys::cuMemAllocHost_v2(&mut host, BYTES) };
        Download {
            stream: unsafe { stream() },
            dev: unsafe { device() },
            host: host as *mut f32,
        }
    }

    unsafe fn start(&self) -> CUresult {
        unsafe { sys::cuMemcpyDtoHAsync_v2(self.host as *mut c_void, self.dev, BYTES, self.stream) }
    }

    unsafe fn wait(&self) -> CUresult {
        unsafe { sys::cuStreamSynchronize(self.stream) }
    }
}

fn fires_struct_read_before_wait() -> f32 {
    unsafe {
        let download = Download::new();
        download.start();
        let first = *download.host;
        //~^ missing_sync
        download.wait();
        first
    }
}

fn ok_stream_synchronized_before_the_read() -> f32 {
    unsafe {
        let s = stream();
        let d = device();
        let mut host: *mut c_void = null_mut();
        sys::cuMemAllocHost_v2(&mut host, BYTES);
        sys::cuMemcpyDtoHAsync_v2(host, d, BYTES, s);
        sys::cuStreamSynchronize(s);
        let out = std::slice::from_raw_parts(host as *const f32, N);
        out[0]
    }
}

fn ok_event_synchronized_before_the_read() -> f32 {
    unsafe {
        let s = stream();
        let d = device();
        let mut done: CUevent = null_mut();
        sys::cuEventCreate(&mut done, 0);
        let mut host: *mut c_void = null_mut();
        sys::cuMemAllocHost_v2(&mut host, BYTES);
        sys::cuMemcpyDtoHAsync_v2(host, d, BYTES, s);
        sys::cuEventRecord(done, s);
        sys::cuEventSynchronize(done);
        *(host as *const f32)
    }
}

fn ok_own_bindings_synchronized_in_the_loop() {
    unsafe {
        let mut s: ffi::CUstream = null_mut();
        ffi::cuStreamCreate(&mut s, 0);
        let mut d: ffi::CUdeviceptr = 0;
        ffi::cuMemAlloc_v2(&mut d, BYTES);
        let mut host: *mut c_void = null_mut();
        ffi::cuMemHostAlloc(&mut host, BYTES, 0);
        let staging = std::slice::from_raw_parts_mut(host as *mut f32, N);
        for batch in 0..4 {
            staging.fill(batch as f32);
            ffi::cuMemcpyHtoDAsync_v2(d, host, BYTES, s);
            ffi::cuStreamSynchronize(s);
        }
    }
}

fn ok_context_synchronized_on_every_branch(check: bool) -> f32 {
    unsafe {
        let s = stream();
        let d = device();
        let mut host: *mut c_void = null_mut();
        sys::cuMemHostAlloc(&mut host, BYTES, 0);
        sys::cuMemcpyDtoHAsync_v2(host, d, BYTES, s);
        if check {
            sys::cuStreamSynchronize(s);
        } else {
            sys::cuCtxSynchronize();
        }
        *(host as *const f32)
    }
}

fn ok_blocking_copy_then_read() -> f32 {
    unsafe {
        let d = device();
        let mut host: *mut c_void = null_mut();
        sys::cuMemAllocHost_v2(&mut host, BYTES);
        sys::cuMemcpyDtoH_v2(host, d, BYTES);
        *(host as *const f32)
    }
}

fn ok_freed_on_the_stream_that_uses_it() {
    unsafe {
        let copy = stream();
        let d = device();
        let mut host: *mut c_void = null_mut();
        sys::cuMemAllocHost_v2(&mut host, BYTES);
        sys::cuMemcpyHtoDAsync_v2(d, host, BYTES, copy);
        sys::cuMemFreeAsync(d, copy);
        sys::cuStreamSynchronize(copy);
    }
}

fn ok_managed_memory_read_after_synchronize(kernel: sys::CUfunction) -> f32 {
    unsafe {
        let s = stream();
        let mut data: CUdeviceptr = 0;
        sys::cuMemAllocManaged(&mut data, BYTES, 1);
        let mut n = N as u32;
        let mut params = [&mut data as *mut CUdeviceptr as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cuLaunchKernel(kernel, 1024, 1, 1, 1024, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        sys::cuStreamSynchronize(s);
        *(data as *const f32)
    }
}

fn ok_struct_waits_before_reading() -> f32 {
    unsafe {
        let download = Download::new();
        download.start();
        download.wait();
        *download.host
    }
}

fn ok_registered_vec_read_after_synchronize() -> f32 {
    unsafe {
        let s = stream();
        let d = device();
        let mut out = vec![0.0f32; N];
        sys::cuMemHostRegister_v2(out.as_mut_ptr() as *mut c_void, BYTES, 0);
        sys::cuMemcpyDtoHAsync_v2(out.as_mut_ptr() as *mut c_void, d, BYTES, s);
        sys::cuStreamSynchronize(s);
        out[0]
    }
}

// The kernel's PTX handed to `cuModuleLoadData` as a C string (`compile_ptx(src)?.to_src()`),
// its name as a C string literal: the source is followed, so what the kernel writes is known.
// A blocking copy on the legacy stream does not wait for a non-blocking stream's kernel.
const WRITE_SRC: &str = r#"
extern "C" __global__ void count(unsigned* out) { out[threadIdx.x] = 1u; }
"#;

fn fires_blocking_copy_after_a_kernel_loaded_from_a_c_string() -> Result<(), Box<dyn std::error::Error>> {
    let image = std::ffi::CString::new(cudarc::nvrtc::compile_ptx(WRITE_SRC)?.to_src())?;
    let (mut module, mut func, mut stream) = (null_mut(), null_mut(), null_mut());
    let mut out = 0;
    unsafe {
        sys::cuModuleLoadData(&mut module, image.as_ptr() as *const c_void).result()?;
        sys::cuModuleGetFunction(&mut func, module, c"count".as_ptr()).result()?;
        sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
        sys::cuMemAlloc_v2(&mut out, 128).result()?;
        let mut arg = out;
        let mut params = [&mut arg as *mut u64 as *mut c_void];
        sys::cuLaunchKernel(func, 1, 1, 1, 32, 1, 1, 0, stream, params.as_mut_ptr(), null_mut()).result()?;
        let mut host = [0u32; 32];
        sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, out, 128).result()?; //~ missing_sync
    }
    Ok(())
}

fn ok_blocking_copy_after_the_stream_is_synchronized() -> Result<(), Box<dyn std::error::Error>> {
    let image = std::ffi::CString::new(cudarc::nvrtc::compile_ptx(WRITE_SRC)?.to_src())?;
    let (mut module, mut func, mut stream) = (null_mut(), null_mut(), null_mut());
    let mut out = 0;
    unsafe {
        sys::cuModuleLoadData(&mut module, image.as_ptr() as *const c_void).result()?;
        sys::cuModuleGetFunction(&mut func, module, c"count".as_ptr()).result()?;
        sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
        sys::cuMemAlloc_v2(&mut out, 128).result()?;
        let mut arg = out;
        let mut params = [&mut arg as *mut u64 as *mut c_void];
        sys::cuLaunchKernel(func, 1, 1, 1, 32, 1, 1, 0, stream, params.as_mut_ptr(), null_mut()).result()?;
        sys::cuStreamSynchronize(stream).result()?;
        let mut host = [0u32; 32];
        sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, out, 128).result()?;
    }
    Ok(())
}

// Where an asynchronous copy returned `Ok`, the copy runs.
fn fires_buffer_reset_where_the_copy_started(stream: CUstream, dev: CUdeviceptr) -> Result<f32, cudarc::driver::DriverError> {
    let mut host: *mut c_void = null_mut();
    unsafe { sys::cuMemAllocHost_v2(&mut host, BYTES).result()? };
    let staged = unsafe { std::slice::from_raw_parts_mut(host as *mut f32, N) };
    if unsafe { cudarc::driver::result::memcpy_dtoh_async(staged, dev, stream) }.is_ok() {
        staged.fill(0.0); //~ missing_sync
    }
    unsafe { sys::cuStreamSynchronize(stream).result()? };
    Ok(staged[0])
}

// An event handed out by code the analysis does not see is still one event: recorded after
// the copy and waited on, it orders the read after the copy.
unsafe extern "C" {
    /// A C library's event registry, which the analysis does not see.
    fn registry_event(slot: u32) -> CUevent;
}

fn ok_copy_waited_through_an_event_from_elsewhere(stream: CUstream, dev: CUdeviceptr) -> Result<f32, cudarc::driver::DriverError> {
    let mut host: *mut c_void = null_mut();
    unsafe { sys::cuMemAllocHost_v2(&mut host, BYTES).result()? };
    let done = unsafe { registry_event(0) };
    unsafe {
        sys::cuMemcpyDtoHAsync_v2(host, dev, BYTES, stream).result()?;
        sys::cuEventRecord(done, stream).result()?;
        sys::cuEventSynchronize(done).result()?;
        Ok(*(host as *const f32))
    }
}

fn main() {}
