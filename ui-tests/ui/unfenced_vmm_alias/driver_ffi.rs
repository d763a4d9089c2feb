// VMM through the raw driver API (`cudarc::driver::sys`): one physical allocation
// (`cuMemCreate`) mapped at two reserved addresses (`cuMemAddressReserve` + `cuMemMap`).
// Kernels come from cudarc's NVRTC (source visible) or from `cuModuleLoadData` (not).
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUmemGenericAllocationHandle, CUstream};
use cudarc::driver::{CudaContext, CudaModule, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const BYTES: usize = 2 << 20;

const ALIAS_KERNELS: &str = r#"
extern "C" __global__ void copy_alias(volatile float* a, volatile float* b, float* out) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    a[i] = 1.0f;
    out[i] = b[i];
}
extern "C" __global__ void copy_alias_fenced(volatile float* a, volatile float* b, float* out) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    a[i] = 1.0f;
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = b[i];
}
"#;

fn module(ctx: &Arc<CudaContext>) -> Result<Arc<CudaModule>, DriverError> {
    ctx.load_module(compile_ptx(ALIAS_KERNELS).expect("the kernels compile"))
}

unsafe fn physical() -> CUmemGenericAllocationHandle {
    unsafe {
        let mut prop: sys::CUmemAllocationProp = std::mem::zeroed();
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        let mut handle: CUmemGenericAllocationHandle = 0;
        sys::cuMemCreate(&mut handle, BYTES, &prop, 0);
        handle
    }
}

unsafe fn map(handle: CUmemGenericAllocationHandle) -> CUdeviceptr {
    unsafe {
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, BYTES, 0, 0, 0);
        sys::cuMemMap(va, BYTES, 0, handle, 0);
        let mut access: sys::CUmemAccessDesc = std::mem::zeroed();
        access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        sys::cuMemSetAccess(va, BYTES, &access, 1);
        va
    }
}

unsafe fn stream() -> CUstream {
    let mut s: CUstream = null_mut();
    unsafe { sys::cuStreamCreate(&mut s, 0) };
    s
}

fn fires_unfenced_kernel_through_cu_launch_kernel() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let f = module(&ctx)?.load_function("copy_alias")?;
    unsafe {
        let h = physical();
        let mut a = map(h);
        let mut b = map(h);
        let mut out: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut out, BYTES);
        let mut params = [
            &mut a as *mut CUdeviceptr as *mut c_void,
            &mut b as *mut CUdeviceptr as *mut c_void,
            &mut out as *mut CUdeviceptr as *mut c_void,
        ];
        sys::cuLaunchKernel(f.cu_function(), 512, 1, 1, 1024, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut());
        //~^ unfenced_vmm_alias
        sys::cuCtxSynchronize();
    }
    Ok(())
}

fn fires_unfenced_kernel_through_the_launch_builder() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = module(&ctx)?.load_function("copy_alias")?;
    let mut out = stream.alloc_zeros::<f32>(BYTES / 4)?;
    let (a, b) = unsafe {
        let h = physical();
        (map(h), map(h))
    };
    let mut launch = stream.launch_builder(&f);
    launch.arg(&a).arg(&b).arg(&mut out);
    unsafe { launch.launch(LaunchConfig::for_num_elems((BYTES / 4) as u32))? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

// The kernel's source is not visible: what it writes is not seen, so this is
// `unverified`'s (allow by default, tests in ui/unverified/), not this lint's.
fn unseen_kernel_loaded_from_a_raw_module(image: &[u8]) {
    unsafe {
        let mut module: sys::CUmodule = null_mut();
        sys::cuModuleLoadData(&mut module, image.as_ptr() as *const c_void);
        let mut f: sys::CUfunction = null_mut();
        sys::cuModuleGetFunction(&mut f, module, c"copy_alias".as_ptr());
        let h = physical();
        let mut a = map(h);
        let mut b = map(h);
        let mut params = [&mut a as *mut CUdeviceptr as *mut c_void, &mut b as *mut CUdeviceptr as *mut c_void];
        sys::cuLaunchKernel(f, 512, 1, 1, 1024, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut());
    }
}

fn fires_two_streams_write_and_read_the_two_mappings(host: *mut c_void) {
    unsafe {
        let writer = stream();
        let reader = stream();
        let h = physical();
        let a = map(h);
        let b = map(h);
        sys::cuMemsetD32Async(a, 7, BYTES / 4, writer);
        sys::cuMemcpyDtoHAsync_v2(host, b, BYTES, reader);
        //~^ unfenced_vmm_alias
        sys::cuCtxSynchronize();
    }
}

fn fires_event_wait_on_one_branch_only(host: *mut c_void, ordered: bool) {
    unsafe {
        let writer = stream();
        let reader = stream();
        let mut written: CUevent = null_mut();
        sys::cuEventCreate(&mut written, 0);
        let h = physical();
        let a = map(h);
        let b = map(h);
        sys::cuMemsetD32Async(a, 7, BYTES / 4, writer);
        if ordered {
            sys::cuEventRecord(written, writer);
            sys::cuStreamWaitEvent(reader, written, 0);
        }
        sys::cuMemcpyDtoHAsync_v2(host, b, BYTES, reader);
        //~^ unfenced_vmm_alias
        sys::cuCtxSynchronize();
    }
}

fn ok_fenced_kernel() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let f = module(&ctx)?.load_function("copy_alias_fenced")?;
    unsafe {
        let h = physical();
        let mut a = map(h);
        let mut b = map(h);
        let mut out: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut out, BYTES);
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

fn ok_two_physical_allocations() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = module(&ctx)?.load_function("copy_alias")?;
    let mut out = stream.alloc_zeros::<f32>(BYTES / 4)?;
    let (a, b) = unsafe { (map(physical()), map(physical())) };
    let mut launch = stream.launch_builder(&f);
    launch.arg(&a).arg(&b).arg(&mut out);
    unsafe { launch.launch(LaunchConfig::for_num_elems((BYTES / 4) as u32))? };
    stream.synchronize()
}

fn ok_one_mapping_used_by_the_kernel() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = module(&ctx)?.load_function("copy_alias")?;
    let mut out = stream.alloc_zeros::<f32>(BYTES / 4)?;
    let (a, _b) = unsafe {
        let h = physical();
        (map(h), map(h))
    };
    let mut launch = stream.launch_builder(&f);
    launch.arg(&a).arg(&a).arg(&mut out);
    unsafe { launch.launch(LaunchConfig::for_num_elems((BYTES / 4) as u32))? };
    stream.synchronize()
}

fn ok_two_streams_ordered_by_an_event(host: *mut c_void) {
    unsafe {
        let writer = stream();
        let reader = stream();
        let mut written: CUevent = null_mut();
        sys::cuEventCreate(&mut written, 0);
        let h = physical();
        let a = map(h);
        let b = map(h);
        sys::cuMemsetD32Async(a, 7, BYTES / 4, writer);
        sys::cuEventRecord(written, writer);
        sys::cuStreamWaitEvent(reader, written, 0);
        sys::cuMemcpyDtoHAsync_v2(host, b, BYTES, reader);
        sys::cuCtxSynchronize();
    }
}

fn ok_both_mappings_used_on_one_stream(host: *mut c_void) {
    unsafe {
        let s = stream();
        let h = physical();
        let a = map(h);
        let b = map(h);
        sys::cuMemsetD32Async(a, 7, BYTES / 4, s);
        sys::cuMemcpyDtoHAsync_v2(host, b, BYTES, s);
        sys::cuStreamSynchronize(s);
    }
}

fn ok_writer_synchronized_before_the_reader_starts(host: *mut c_void) {
    unsafe {
        let writer = stream();
        let reader = stream();
        let h = physical();
        let a = map(h);
        let b = map(h);
        sys::cuMemsetD32Async(a, 7, BYTES / 4, writer);
        sys::cuStreamSynchronize(writer);
        sys::cuMemcpyDtoHAsync_v2(host, b, BYTES, reader);
        sys::cuStreamSynchronize(reader);
    }
}

fn main() {}
