// cudarc has no VMM API of its own: programs map with `driver::sys` and wrap each mapping in
// a `CudaSlice` (`upgrade_device_ptr`). cudarc's events are per slice, so two slices over two
// mappings of one allocation are never ordered with each other.
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::{CudaContext, CudaModule, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const BYTES: usize = 2 << 20;
const LEN: usize = BYTES / 4;

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
        let mut handle: CUmemGenericAllocationHandle = 0;
        sys::cuMemCreate(&mut handle, BYTES, &prop, 0);
        handle
    }
}

/// A mapping of `handle`, as a slice cudarc will not free (it is leaked before drop).
unsafe fn mapped_slice(stream: &Arc<CudaStream>, handle: CUmemGenericAllocationHandle) -> CudaSlice<f32> {
    unsafe {
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, BYTES, 0, 0, 0);
        sys::cuMemMap(va, BYTES, 0, handle, 0);
        let mut access: sys::CUmemAccessDesc = std::mem::zeroed();
        access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        sys::cuMemSetAccess(va, BYTES, &access, 1);
        stream.upgrade_device_ptr::<f32>(va, LEN)
    }
}

fn fires_writer_and_reader_streams_on_two_slices() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let writer = ctx.new_stream()?;
    let reader = ctx.new_stream()?;
    let h = unsafe { physical() };
    let mut a = unsafe { mapped_slice(&writer, h) };
    let b = unsafe { mapped_slice(&reader, h) };
    let mut host = unsafe { ctx.alloc_pinned::<f32>(LEN)? };
    writer.memset_zeros(&mut a)?;
    reader.memcpy_dtoh(&b, &mut host)?;
    //~^ unfenced_vmm_alias
    ctx.synchronize()?;
    a.leak();
    b.leak();
    Ok(())
}

fn fires_unfenced_kernel_given_both_slices() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = module(&ctx)?.load_function("copy_alias")?;
    let h = unsafe { physical() };
    let mut a = unsafe { mapped_slice(&stream, h) };
    let b = unsafe { mapped_slice(&stream, h) };
    let mut out = stream.alloc_zeros::<f32>(LEN)?;
    let mut launch = stream.launch_builder(&f);
    launch.arg(&mut a).arg(&b).arg(&mut out);
    unsafe { launch.launch(LaunchConfig::for_num_elems(LEN as u32))? };
    //~^ unfenced_vmm_alias
    stream.synchronize()?;
    a.leak();
    b.leak();
    Ok(())
}

fn fires_kernel_on_one_slice_while_another_stream_copies_the_other() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let compute = ctx.new_stream()?;
    let copy = ctx.new_stream()?;
    let f = module(&ctx)?.load_function("copy_alias_fenced")?;
    let h = unsafe { physical() };
    let mut a = unsafe { mapped_slice(&compute, h) };
    let b = unsafe { mapped_slice(&copy, h) };
    let mut out = compute.alloc_zeros::<f32>(LEN)?;
    let mut launch = compute.launch_builder(&f);
    let n = LEN as u32;
    launch.arg(&mut a).arg(&mut out).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(LEN as u32))? };
    let mut host = unsafe { ctx.alloc_pinned::<f32>(LEN)? };
    copy.memcpy_dtoh(&b, &mut host)?;
    //~^ unfenced_vmm_alias
    ctx.synchronize()?;
    a.leak();
    b.leak();
    Ok(())
}

fn ok_fenced_kernel_given_both_slices() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = module(&ctx)?.load_function("copy_alias_fenced")?;
    let h = unsafe { physical() };
    let mut a = unsafe { mapped_slice(&stream, h) };
    let b = unsafe { mapped_slice(&stream, h) };
    let mut out = stream.alloc_zeros::<f32>(LEN)?;
    let mut launch = stream.launch_builder(&f);
    launch.arg(&mut a).arg(&b).arg(&mut out);
    unsafe { launch.launch(LaunchConfig::for_num_elems(LEN as u32))? };
    stream.synchronize()?;
    a.leak();
    b.leak();
    Ok(())
}

fn ok_both_slices_used_on_one_stream() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let h = unsafe { physical() };
    let mut a = unsafe { mapped_slice(&stream, h) };
    let b = unsafe { mapped_slice(&stream, h) };
    let mut host = unsafe { ctx.alloc_pinned::<f32>(LEN)? };
    stream.memset_zeros(&mut a)?;
    stream.memcpy_dtoh(&b, &mut host)?;
    stream.synchronize()?;
    a.leak();
    b.leak();
    Ok(())
}

fn ok_reader_joins_the_writer_first() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let writer = ctx.new_stream()?;
    let reader = ctx.new_stream()?;
    let h = unsafe { physical() };
    let mut a = unsafe { mapped_slice(&writer, h) };
    let b = unsafe { mapped_slice(&reader, h) };
    let mut host = unsafe { ctx.alloc_pinned::<f32>(LEN)? };
    writer.memset_zeros(&mut a)?;
    reader.join(&writer)?;
    reader.memcpy_dtoh(&b, &mut host)?;
    ctx.synchronize()?;
    a.leak();
    b.leak();
    Ok(())
}

fn ok_one_slice_per_physical_allocation() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let writer = ctx.new_stream()?;
    let reader = ctx.new_stream()?;
    let mut a = unsafe { mapped_slice(&writer, physical()) };
    let b = unsafe { mapped_slice(&reader, physical()) };
    let mut host = unsafe { ctx.alloc_pinned::<f32>(LEN)? };
    writer.memset_zeros(&mut a)?;
    reader.memcpy_dtoh(&b, &mut host)?;
    ctx.synchronize()?;
    a.leak();
    b.leak();
    Ok(())
}

fn main() {}
