// cudarc has no VMM API of its own: programs map with `driver::sys` and hand each mapping to
// cudarc as a `CudaSlice` (`upgrade_device_ptr`), then use it with cudarc's streams. A mapping
// without access faults on cudarc's first use of the slice just the same.
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const BYTES: usize = 2 << 20;
const LEN: usize = BYTES / 4;

const FILL: &str = r#"
extern "C" __global__ void fill(float* out, float v) {
    out[threadIdx.x + blockIdx.x * blockDim.x] = v;
}
"#;

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

unsafe fn grant(va: CUdeviceptr) {
    unsafe {
        let mut access: sys::CUmemAccessDesc = std::mem::zeroed();
        access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        sys::cuMemSetAccess(va, BYTES, &access, 1);
    }
}

/// Reserves and maps; access is the caller's to set.
unsafe fn reserve_and_map(handle: CUmemGenericAllocationHandle) -> CUdeviceptr {
    unsafe {
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, BYTES, 0, 0, 0);
        sys::cuMemMap(va, BYTES, 0, handle, 0);
        va
    }
}

/// Reserves, maps and grants access: ready to use.
unsafe fn mapped_slice(stream: &Arc<CudaStream>, handle: CUmemGenericAllocationHandle) -> CudaSlice<f32> {
    unsafe {
        let va = reserve_and_map(handle);
        grant(va);
        stream.upgrade_device_ptr::<f32>(va, LEN)
    }
}

fn fires_memset_of_a_slice_over_a_mapping_without_access() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let va = unsafe { reserve_and_map(physical()) };
    let mut slice = unsafe { stream.upgrade_device_ptr::<f32>(va, LEN) };
    stream.memset_zeros(&mut slice)?;
    //~^ vmm_lifecycle
    stream.synchronize()?;
    slice.leak();
    Ok(())
}

fn fires_kernel_writing_a_mapping_without_access() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(FILL).expect("compiles"))?.load_function("fill")?;
    let va = unsafe { reserve_and_map(physical()) };
    let mut out = unsafe { stream.upgrade_device_ptr::<f32>(va, LEN) };
    let mut launch = stream.launch_builder(&f);
    launch.arg(&mut out).arg(&1.0f32);
    unsafe { launch.launch(LaunchConfig::for_num_elems(LEN as u32))? };
    //~^ vmm_lifecycle
    stream.synchronize()?;
    out.leak();
    Ok(())
}

fn fires_htod_into_a_mapping_without_access(data: &[f32]) -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let va = unsafe { reserve_and_map(physical()) };
    let mut dst = unsafe { stream.upgrade_device_ptr::<f32>(va, LEN) };
    stream.memcpy_htod(data, &mut dst)?;
    //~^ vmm_lifecycle
    stream.synchronize()?;
    dst.leak();
    Ok(())
}

fn fires_range_freed_with_the_slice_still_mapped() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let h = unsafe { physical() };
    let mut slice = unsafe { mapped_slice(&stream, h) };
    stream.memset_zeros(&mut slice)?;
    stream.synchronize()?;
    let va = slice.leak();
    unsafe {
        sys::cuMemRelease(h);
        sys::cuMemAddressFree(va, BYTES);
        //~^ vmm_lifecycle
    }
    Ok(())
}

fn ok_slice_over_a_mapping_with_access() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut slice = unsafe { mapped_slice(&stream, physical()) };
    stream.memset_zeros(&mut slice)?;
    stream.synchronize()?;
    slice.leak();
    Ok(())
}

fn ok_kernel_after_access_set_by_the_caller_of_the_helper() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(FILL).expect("compiles"))?.load_function("fill")?;
    let va = unsafe { reserve_and_map(physical()) };
    unsafe { grant(va) };
    let mut out = unsafe { stream.upgrade_device_ptr::<f32>(va, LEN) };
    let mut launch = stream.launch_builder(&f);
    launch.arg(&mut out).arg(&1.0f32);
    unsafe { launch.launch(LaunchConfig::for_num_elems(LEN as u32))? };
    stream.synchronize()?;
    out.leak();
    Ok(())
}

fn ok_teardown_in_the_documented_order() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let h = unsafe { physical() };
    let mut slice = unsafe { mapped_slice(&stream, h) };
    stream.memset_zeros(&mut slice)?;
    stream.synchronize()?;
    let va = slice.leak();
    unsafe {
        sys::cuMemUnmap(va, BYTES);
        sys::cuMemRelease(h);
        sys::cuMemAddressFree(va, BYTES);
    }
    Ok(())
}

fn ok_result_checked_map_then_access() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut va: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAddressReserve(&mut va, BYTES, 0, 0, 0).result()?;
        sys::cuMemMap(va, BYTES, 0, physical(), 0).result()?;
        grant(va);
    }
    let mut slice = unsafe { stream.upgrade_device_ptr::<f32>(va, LEN) };
    stream.memset_zeros(&mut slice)?;
    stream.synchronize()?;
    slice.leak();
    Ok(())
}

fn main() {}
