//@compile-flags: -W cuda_lint::unverified
// cudarc's safe API. A kernel from `Ptx::from_file`, from a module the caller gives, or named by
// a string that is not a constant is not visible to cuda-lint. cudarc 0.19.10 makes a host
// read wait only for the events its launches record on its own types: `UnifiedSlice` given to
// the launch builder records one that `as_slice` waits for, but memory the kernel reaches
// through a raw device address (a `PinnedHostSlice` allocated with `CU_MEMHOSTALLOC_DEVICEMAP`,
// or a `UnifiedSlice`'s `device_ptr` whose guard is dropped at once) records none, so
// `as_slice` waits for nothing.
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::{
    CudaContext, CudaModule, CudaSlice, CudaStream, DevicePtr, DriverError, LaunchConfig, PinnedHostSlice,
    PushKernelArg,
};
use cudarc::nvrtc::{Ptx, compile_ptx};

const N: usize = 1 << 20;
const VMM_BYTES: usize = 2 << 20;
const VMM_LEN: usize = VMM_BYTES / 4;

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

/// Kernels built elsewhere (`nvcc --ptx`): their source is not in the crate.
fn module_from_ptx_file(ctx: &Arc<CudaContext>) -> Result<Arc<CudaModule>, DriverError> {
    ctx.load_module(Ptx::from_file("kernels/scale.ptx"))
}

fn visible_module(ctx: &Arc<CudaContext>) -> Result<Arc<CudaModule>, DriverError> {
    ctx.load_module(compile_ptx(KERNELS).expect("the kernels compile"))
}

/// Host-mapped pinned memory (not write-combined).
fn host_mapped(ctx: &Arc<CudaContext>) -> Result<PinnedHostSlice<f32>, DriverError> {
    unsafe { ctx.alloc_pinned_with_flags::<f32>(N, sys::CU_MEMHOSTALLOC_DEVICEMAP) }
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

/// A mapping of `handle`, as a slice cudarc will not free (it is leaked before drop).
unsafe fn mapped_slice(stream: &Arc<CudaStream>, handle: CUmemGenericAllocationHandle) -> CudaSlice<f32> {
    unsafe {
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, VMM_BYTES, 0, 0, 0);
        sys::cuMemMap(va, VMM_BYTES, 0, handle, 0);
        let mut access: sys::CUmemAccessDesc = std::mem::zeroed();
        access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        sys::cuMemSetAccess(va, VMM_BYTES, &access, 1);
        stream.upgrade_device_ptr::<f32>(va, VMM_LEN)
    }
}

fn fires_host_mapped_read_after_a_kernel_from_a_ptx_file() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let scale = module_from_ptx_file(&ctx)?.load_function("scale")?;
    let mut host = host_mapped(&ctx)?;
    // Unified addressing: the host address of mapped pinned memory is its device address.
    let dev = host.as_mut_ptr()? as u64;
    let n = N as u32;
    let mut launch = stream.launch_builder(&scale);
    launch.arg(&dev).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n))? };
    let first = host.as_slice()?[0];
    //~^ unverified
    stream.synchronize()?;
    Ok(first)
}

fn fires_unified_read_after_its_raw_pointer_went_to_a_kernel_from_a_ptx_file() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let scale = module_from_ptx_file(&ctx)?.load_function("scale")?;
    let unified = unsafe { ctx.alloc_unified::<f32>(N, true)? };
    // `_` drops the guard at once: it records the slice's event before the launch.
    let (ptr, _) = unified.device_ptr(&stream);
    let n = N as u32;
    let mut launch = stream.launch_builder(&scale);
    launch.arg(&ptr).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n))? };
    let first = unified.as_slice()?[0];
    //~^ unverified
    stream.synchronize()?;
    Ok(first)
}

fn fires_kernel_of_a_module_from_the_caller(ctx: &Arc<CudaContext>, module: &Arc<CudaModule>) -> Result<f32, DriverError> {
    let stream = ctx.default_stream();
    let scale = module.load_function("scale")?;
    let mut host = host_mapped(ctx)?;
    let dev = host.as_mut_ptr()? as u64;
    let n = N as u32;
    let mut launch = stream.launch_builder(&scale);
    launch.arg(&dev).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n))? };
    let first = host.as_slice()?[0];
    //~^ unverified
    stream.synchronize()?;
    Ok(first)
}

fn fires_kernel_named_by_the_caller(name: &str) -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = visible_module(&ctx)?.load_function(name)?;
    let mut host = host_mapped(&ctx)?;
    let dev = host.as_mut_ptr()? as u64;
    let n = N as u32;
    let mut launch = stream.launch_builder(&f);
    launch.arg(&dev).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n))? };
    let first = host.as_slice()?[0];
    //~^ unverified
    stream.synchronize()?;
    Ok(first)
}

fn fires_two_mapped_slices_given_to_a_kernel_from_a_ptx_file() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = module_from_ptx_file(&ctx)?.load_function("copy_alias")?;
    let h = unsafe { physical() };
    let mut a = unsafe { mapped_slice(&stream, h) };
    let b = unsafe { mapped_slice(&stream, h) };
    let mut out = stream.alloc_zeros::<f32>(VMM_LEN)?;
    let mut launch = stream.launch_builder(&f);
    launch.arg(&mut a).arg(&b).arg(&mut out);
    unsafe { launch.launch(LaunchConfig::for_num_elems(VMM_LEN as u32))? };
    //~^ unverified
    stream.synchronize()?;
    a.leak();
    b.leak();
    Ok(())
}

fn ok_host_mapped_read_after_stream_synchronize() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let scale = module_from_ptx_file(&ctx)?.load_function("scale")?;
    let mut host = host_mapped(&ctx)?;
    let dev = host.as_mut_ptr()? as u64;
    let n = N as u32;
    let mut launch = stream.launch_builder(&scale);
    launch.arg(&dev).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n))? };
    stream.synchronize()?;
    Ok(host.as_slice()?[0])
}

fn ok_unified_slice_given_to_the_launch_builder() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let scale = module_from_ptx_file(&ctx)?.load_function("scale")?;
    let mut unified = unsafe { ctx.alloc_unified::<f32>(N, true)? };
    let n = N as u32;
    let mut launch = stream.launch_builder(&scale);
    launch.arg(&mut unified).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n))? };
    // The launch recorded the slice's event; `as_slice` synchronizes it first.
    Ok(unified.as_slice()?[0])
}

fn ok_host_mapped_input_of_a_kernel_from_visible_source() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = visible_module(&ctx)?.load_function("sum_into")?;
    let mut host = host_mapped(&ctx)?;
    let input = host.as_mut_ptr()? as u64;
    let mut total = stream.alloc_zeros::<f32>(1)?;
    let n = N as u32;
    let mut launch = stream.launch_builder(&f);
    launch.arg(&input).arg(&mut total).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n))? };
    // `sum_into` only reads `in`: reading it on the host meanwhile is fine.
    let first = host.as_slice()?[0];
    stream.synchronize()?;
    Ok(first)
}

fn ok_host_mapped_buffer_not_given_to_the_kernel() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let scale = module_from_ptx_file(&ctx)?.load_function("scale")?;
    let host = host_mapped(&ctx)?;
    let mut work = stream.alloc_zeros::<f32>(N)?;
    let n = N as u32;
    let mut launch = stream.launch_builder(&scale);
    launch.arg(&mut work).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n))? };
    let first = host.as_slice()?[0];
    stream.synchronize()?;
    Ok(first)
}

fn ok_two_mapped_slices_given_to_a_fenced_kernel_from_visible_source() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = visible_module(&ctx)?.load_function("copy_alias_fenced")?;
    let h = unsafe { physical() };
    let mut a = unsafe { mapped_slice(&stream, h) };
    let b = unsafe { mapped_slice(&stream, h) };
    let mut out = stream.alloc_zeros::<f32>(VMM_LEN)?;
    let mut launch = stream.launch_builder(&f);
    launch.arg(&mut a).arg(&b).arg(&mut out);
    unsafe { launch.launch(LaunchConfig::for_num_elems(VMM_LEN as u32))? };
    stream.synchronize()?;
    a.leak();
    b.leak();
    Ok(())
}

fn ok_one_mapped_slice_given_to_a_kernel_from_a_ptx_file() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = module_from_ptx_file(&ctx)?.load_function("copy_alias")?;
    let h = unsafe { physical() };
    let mut a = unsafe { mapped_slice(&stream, h) };
    let b = unsafe { mapped_slice(&stream, h) };
    let c = stream.alloc_zeros::<f32>(VMM_LEN)?;
    let mut out = stream.alloc_zeros::<f32>(VMM_LEN)?;
    let mut launch = stream.launch_builder(&f);
    launch.arg(&mut a).arg(&c).arg(&mut out);
    unsafe { launch.launch(LaunchConfig::for_num_elems(VMM_LEN as u32))? };
    stream.synchronize()?;
    a.leak();
    b.leak();
    Ok(())
}

fn main() {}
