//@compile-flags: -W cuda_lint::unverified
// The raw driver API (`cudarc::driver::sys`): kernels loaded from a PTX file (`cuModuleLoad`),
// from a module handle the caller gives, or by a name that is not a constant are not visible
// to cuda-lint; kernels compiled from a `const` CUDA string with NVRTC and named with a
// constant are. Host-visible memory is managed (`cuMemAllocManaged`) or host-mapped pinned
// (`cuMemHostAlloc` with `CU_MEMHOSTALLOC_DEVICEMAP`); aliases are two `cuMemMap`s of one
// `cuMemCreate` allocation.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::{CStr, c_void};
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmemGenericAllocationHandle, CUmodule, CUstream};
use cudarc::driver::{CudaContext, CudaModule, DriverError};
use cudarc::nvrtc::compile_ptx;

const N: usize = 1 << 20;
const BYTES: usize = N * 4;
const VMM_BYTES: usize = 2 << 20;

const KERNELS: &str = r#"
extern "C" __global__ void sum_into(const float* in, float* out, unsigned int n) {
    unsigned int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) atomicAdd(out, in[i]);
}
extern "C" __global__ void copy_alias_fenced(volatile float* a, volatile float* b, float* out) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    a[i] = 1.0f;
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = b[i];
}
"#;

fn visible_module(ctx: &Arc<CudaContext>) -> Result<Arc<CudaModule>, DriverError> {
    ctx.load_module(compile_ptx(KERNELS).expect("the kernels compile"))
}

/// A kernel from a PTX file built elsewhere (`nvcc --ptx`): its source is not in the crate.
unsafe fn kernel_from_ptx_file(name: &CStr) -> CUfunction {
    unsafe {
        let mut module: CUmodule = null_mut();
        sys::cuModuleLoad(&mut module, c"kernels/scale.ptx".as_ptr());
        let mut f: CUfunction = null_mut();
        sys::cuModuleGetFunction(&mut f, module, name.as_ptr());
        f
    }
}

unsafe fn stream() -> CUstream {
    let mut s: CUstream = null_mut();
    unsafe { sys::cuStreamCreate(&mut s, 0) };
    s
}

unsafe fn managed() -> CUdeviceptr {
    let mut d: CUdeviceptr = 0;
    unsafe { sys::cuMemAllocManaged(&mut d, BYTES, 1) };
    d
}

unsafe fn device() -> CUdeviceptr {
    let mut d: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) };
    d
}

/// Host-mapped pinned memory: the host pointer and the device address of the same bytes.
unsafe fn host_mapped() -> (*mut f32, CUdeviceptr) {
    unsafe {
        let mut host: *mut c_void = null_mut();
        sys::cuMemHostAlloc(&mut host, BYTES, sys::CU_MEMHOSTALLOC_DEVICEMAP);
        let mut dev: CUdeviceptr = 0;
        sys::cuMemHostGetDevicePointer_v2(&mut dev, host, 0);
        (host as *mut f32, dev)
    }
}

/// A host-mapped staging buffer and a device buffer of its own, made together.
unsafe fn staging_and_device() -> (*mut f32, CUdeviceptr) {
    unsafe {
        let mut host: *mut c_void = null_mut();
        sys::cuMemHostAlloc(&mut host, BYTES, sys::CU_MEMHOSTALLOC_DEVICEMAP);
        let mut dev: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut dev, BYTES);
        (host as *mut f32, dev)
    }
}

unsafe fn physical() -> CUmemGenericAllocationHandle {
    unsafe {
        let mut prop: sys::CUmemAllocationProp = std::mem::zeroed();
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        let mut handle: CUmemGenericAllocationHandle = 0;
        sys::cuMemCreate(&mut handle, VMM_BYTES, &prop, 0);
        handle
    }
}

unsafe fn map(handle: CUmemGenericAllocationHandle) -> CUdeviceptr {
    unsafe {
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, VMM_BYTES, 0, 0, 0);
        sys::cuMemMap(va, VMM_BYTES, 0, handle, 0);
        let mut access: sys::CUmemAccessDesc = std::mem::zeroed();
        access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        sys::cuMemSetAccess(va, VMM_BYTES, &access, 1);
        va
    }
}

fn fires_managed_read_after_a_kernel_from_a_ptx_file() -> f32 {
    unsafe {
        let f = kernel_from_ptx_file(c"scale");
        let s = stream();
        let mut data = managed();
        let mut n = N as u32;
        let mut params = [&mut data as *mut CUdeviceptr as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cuLaunchKernel(f, 4096, 1, 1, 256, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        let first = *(data as *const f32);
        //~^ unverified
        sys::cuStreamSynchronize(s);
        first
    }
}

fn fires_host_mapped_read_after_a_kernel_from_a_ptx_file() -> f32 {
    unsafe {
        let f = kernel_from_ptx_file(c"scale");
        let s = stream();
        let (host, mut dev) = host_mapped();
        let mut n = N as u32;
        let mut params = [&mut dev as *mut CUdeviceptr as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cuLaunchKernel(f, 4096, 1, 1, 256, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        let first = *host;
        //~^ unverified
        sys::cuStreamSynchronize(s);
        first
    }
}

// The device address `cuMemHostGetDevicePointer` gives for mapped pinned memory is that memory.
fn fires_host_mapped_read_after_cu_mem_host_get_device_pointer() -> f32 {
    unsafe {
        let f = kernel_from_ptx_file(c"scale");
        let s = stream();
        let mut host: *mut c_void = null_mut();
        sys::cuMemHostAlloc(&mut host, BYTES, sys::CU_MEMHOSTALLOC_DEVICEMAP);
        let mut dev: CUdeviceptr = 0;
        sys::cuMemHostGetDevicePointer_v2(&mut dev, host, 0);
        let mut n = N as u32;
        let mut params = [&mut dev as *mut CUdeviceptr as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cuLaunchKernel(f, 4096, 1, 1, 256, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        // `dev` is the device address of the bytes `host` points at.
        let first = *(host as *const f32);
        //~^ unverified
        sys::cuStreamSynchronize(s);
        first
    }
}

fn fires_host_pointer_of_mapped_memory_given_to_the_kernel() -> f32 {
    unsafe {
        let f = kernel_from_ptx_file(c"scale");
        let s = stream();
        let mut host: *mut c_void = null_mut();
        sys::cuMemHostAlloc(&mut host, BYTES, sys::CU_MEMHOSTALLOC_DEVICEMAP);
        let mut n = N as u32;
        // Unified addressing: the host address of mapped pinned memory is its device address.
        let mut params = [&mut host as *mut *mut c_void as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cuLaunchKernel(f, 4096, 1, 1, 256, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        let first = *(host as *const f32);
        //~^ unverified
        sys::cuStreamSynchronize(s);
        first
    }
}

fn fires_kernel_of_a_module_handle_from_the_caller(module: CUmodule) -> f32 {
    unsafe {
        let mut f: CUfunction = null_mut();
        sys::cuModuleGetFunction(&mut f, module, c"scale".as_ptr());
        let s = stream();
        let mut data = managed();
        let mut n = N as u32;
        let mut params = [&mut data as *mut CUdeviceptr as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cuLaunchKernel(f, 4096, 1, 1, 256, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        let first = *(data as *const f32);
        //~^ unverified
        sys::cuStreamSynchronize(s);
        first
    }
}

fn fires_kernel_named_by_the_caller(name: &str) -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let f = visible_module(&ctx)?.load_function(name)?;
    unsafe {
        let s = stream();
        let (host, mut dev) = host_mapped();
        let mut n = N as u32;
        let mut params = [&mut dev as *mut CUdeviceptr as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cuLaunchKernel(f.cu_function(), 4096, 1, 1, 256, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        let first = *host;
        //~^ unverified
        sys::cuStreamSynchronize(s);
        Ok(first)
    }
}

fn fires_synchronized_on_one_branch_only(check: bool) -> f32 {
    unsafe {
        let f = kernel_from_ptx_file(c"scale");
        let s = stream();
        let mut data = managed();
        let mut n = N as u32;
        let mut params = [&mut data as *mut CUdeviceptr as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cuLaunchKernel(f, 4096, 1, 1, 256, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        if check {
            sys::cuStreamSynchronize(s);
        }
        let first = *(data as *const f32);
        //~^ unverified
        first
    }
}

fn fires_two_mappings_given_to_a_kernel_from_a_ptx_file() {
    unsafe {
        let f = kernel_from_ptx_file(c"copy_alias");
        let h = physical();
        let mut a = map(h);
        let mut b = map(h);
        let mut out = device();
        let mut params = [
            &mut a as *mut CUdeviceptr as *mut c_void,
            &mut b as *mut CUdeviceptr as *mut c_void,
            &mut out as *mut CUdeviceptr as *mut c_void,
        ];
        sys::cuLaunchKernel(f, 512, 1, 1, 1024, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut());
        //~^ unverified
        sys::cuCtxSynchronize();
    }
}

fn fires_two_mappings_given_to_a_kernel_the_source_does_not_define() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    // `KERNELS` defines `copy_alias_fenced`, not `copy_alias`: this one comes from elsewhere.
    let f = visible_module(&ctx)?.load_function("copy_alias")?;
    unsafe {
        let h = physical();
        let mut a = map(h);
        let mut b = map(h);
        let mut out = device();
        let mut params = [
            &mut a as *mut CUdeviceptr as *mut c_void,
            &mut b as *mut CUdeviceptr as *mut c_void,
            &mut out as *mut CUdeviceptr as *mut c_void,
        ];
        sys::cuLaunchKernel(f.cu_function(), 512, 1, 1, 1024, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut());
        //~^ unverified
        sys::cuCtxSynchronize();
    }
    Ok(())
}

fn ok_managed_read_after_stream_synchronize() -> f32 {
    unsafe {
        let f = kernel_from_ptx_file(c"scale");
        let s = stream();
        let mut data = managed();
        let mut n = N as u32;
        let mut params = [&mut data as *mut CUdeviceptr as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cuLaunchKernel(f, 4096, 1, 1, 256, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        sys::cuStreamSynchronize(s);
        *(data as *const f32)
    }
}

fn ok_host_mapped_read_after_context_synchronize() -> f32 {
    unsafe {
        let f = kernel_from_ptx_file(c"scale");
        let s = stream();
        let (host, mut dev) = host_mapped();
        let mut n = N as u32;
        let mut params = [&mut dev as *mut CUdeviceptr as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cuLaunchKernel(f, 4096, 1, 1, 256, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        sys::cuCtxSynchronize();
        *host
    }
}

fn ok_host_mapped_input_of_a_kernel_from_visible_source() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let f = visible_module(&ctx)?.load_function("sum_into")?;
    unsafe {
        let s = stream();
        let (host, mut input) = host_mapped();
        let mut total = device();
        let mut n = N as u32;
        let mut params = [
            &mut input as *mut CUdeviceptr as *mut c_void,
            &mut total as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut u32 as *mut c_void,
        ];
        sys::cuLaunchKernel(f.cu_function(), 4096, 1, 1, 256, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        // `sum_into` only reads `in`: reading it on the host meanwhile is fine.
        let first = *host;
        sys::cuStreamSynchronize(s);
        Ok(first)
    }
}

fn ok_host_mapped_buffer_not_given_to_the_kernel() -> f32 {
    unsafe {
        let f = kernel_from_ptx_file(c"scale");
        let s = stream();
        let (host, _dev) = host_mapped();
        let mut work = device();
        let mut n = N as u32;
        let mut params = [&mut work as *mut CUdeviceptr as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cuLaunchKernel(f, 4096, 1, 1, 256, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        let first = *host;
        sys::cuStreamSynchronize(s);
        first
    }
}

fn ok_staging_buffer_made_beside_the_device_buffer_the_kernel_gets() -> f32 {
    unsafe {
        let f = kernel_from_ptx_file(c"scale");
        let s = stream();
        let (staging, mut dev) = staging_and_device();
        let mut n = N as u32;
        let mut params = [&mut dev as *mut CUdeviceptr as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cuLaunchKernel(f, 4096, 1, 1, 256, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        let first = *staging;
        sys::cuStreamSynchronize(s);
        first
    }
}

fn ok_two_mappings_given_to_a_fenced_kernel_from_visible_source() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let f = visible_module(&ctx)?.load_function("copy_alias_fenced")?;
    unsafe {
        let h = physical();
        let mut a = map(h);
        let mut b = map(h);
        let mut out = device();
        let mut params = [
            &mut a as *mut CUdeviceptr as *mut c_void,
            &mut b as *mut CUdeviceptr as *mut c_void,
            &mut out as *mut CUdeviceptr as *mut c_void,
        ];
        sys::cuLaunchKernel(f.cu_function(), 512, 1, 1, 1024, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut());
        sys::cuCtxSynchronize();
    }
    Ok(())
}

fn ok_one_mapping_given_to_a_kernel_from_a_ptx_file() {
    unsafe {
        let f = kernel_from_ptx_file(c"copy_alias");
        let h = physical();
        let mut a = map(h);
        let _b = map(h);
        let mut out = device();
        let mut params = [
            &mut a as *mut CUdeviceptr as *mut c_void,
            &mut a as *mut CUdeviceptr as *mut c_void,
            &mut out as *mut CUdeviceptr as *mut c_void,
        ];
        sys::cuLaunchKernel(f, 512, 1, 1, 1024, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut());
        sys::cuCtxSynchronize();
    }
}

fn ok_mappings_of_two_allocations_given_to_a_kernel_from_a_ptx_file() {
    unsafe {
        let f = kernel_from_ptx_file(c"copy_alias");
        let mut a = map(physical());
        let mut b = map(physical());
        let mut out = device();
        let mut params = [
            &mut a as *mut CUdeviceptr as *mut c_void,
            &mut b as *mut CUdeviceptr as *mut c_void,
            &mut out as *mut CUdeviceptr as *mut c_void,
        ];
        sys::cuLaunchKernel(f, 512, 1, 1, 1024, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut());
        sys::cuCtxSynchronize();
    }
}

fn main() {}
