// cudarc: its safe types release their own memory, so the mismatches come from raw pointers
// handed to the wrong free (`leak`, `device_ptr`, `sys`), and from slices made over memory no
// allocator made (a module's global: cudarc issue #514, where such a slice freed it on drop).
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // another lint's subject: the test code leaks
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, DevicePtr, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
__device__ float table[256];
extern "C" __global__ void use_table(float* out) { out[threadIdx.x] = table[threadIdx.x]; }
"#;

fn fires_slice_over_a_module_global_dropped() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SRC).expect("compiles"))?;
    let global = module.get_global("table", &stream)?;
    let (ptr, _guard) = global.device_ptr(&stream);
    let as_slice = unsafe { stream.upgrade_device_ptr::<f32>(ptr, 256) };
    drop(as_slice);
    //~^ mismatched_free
    Ok(())
}

fn fires_raw_allocation_beside_cudarc_freed_as_host_memory() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(256)?;
    stream.synchronize()?;
    let mut raw: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut raw, 1024) };
    let _ = dev.leak();
    unsafe { sys::cuMemFreeHost(raw as *mut c_void) };
    //~^ mismatched_free
    Ok(())
}

fn fires_pinned_memory_handed_to_a_slice() -> Result<(), DriverError> {
    // The slice will release it with cuMemFreeAsync, as device memory.
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut host: *mut c_void = null_mut();
    unsafe { sys::cuMemAllocHost_v2(&mut host, 1024) };
    let slice = unsafe { stream.upgrade_device_ptr::<f32>(host as CUdeviceptr, 256) };
    drop(slice);
    //~^ mismatched_free
    Ok(())
}

fn ok_global_written_through_its_view() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SRC).expect("compiles"))?;
    let mut global = module.get_global("table", &stream)?;
    stream.memset_zeros(&mut global)?;
    stream.synchronize()?;
    Ok(())
}

fn ok_raw_allocation_taken_over_by_a_slice() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut raw: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut raw, 1024) };
    let slice = unsafe { stream.upgrade_device_ptr::<f32>(raw, 256) };
    drop(slice);
    Ok(())
}

fn ok_leaked_slice_freed_as_device_memory() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(256)?;
    stream.synchronize()?;
    let raw = dev.leak();
    unsafe { sys::cuMemFree_v2(raw) };
    Ok(())
}

fn ok_pinned_memory_left_to_cudarc() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(256)?;
    let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(256, 0)? };
    stream.memcpy_dtoh(&dev, &mut host)?;
    stream.synchronize()?;
    drop(host);
    drop(dev);
    Ok(())
}

fn main() {}
