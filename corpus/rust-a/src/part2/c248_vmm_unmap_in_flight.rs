//! case: a scratch VMM mapping unmapped (cuMemUnmap) right after the kernel that uses it was launched, with no synchronization: cuMemUnmap does not wait for the device
//! expect: missing_sync=1
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void reduce_into(const float* scratch, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, scratch[i]);
}
"#;

struct Scratch {
    va: CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
}

fn map_scratch(device: i32, size: usize) -> Result<Scratch, DriverError> {
    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    let (mut va, mut handle) = (0, 0);
    let desc = sys::CUmemAccessDesc { location: prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    unsafe {
        sys::cuMemAddressReserve(&mut va, size, 0, 0, 0).result()?;
        sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
        sys::cuMemMap(va, size, 0, handle, 0).result()?;
        sys::cuMemSetAccess(va, size, &desc, 1).result()?;
    }
    Ok(Scratch { va, size, handle })
}

fn reduce_once(stream: &Arc<CudaStream>, f: &CudaFunction, device: i32, out: &mut cudarc::driver::CudaSlice<f32>) -> Result<(), DriverError> {
    let s = map_scratch(device, 2 << 20)?;
    unsafe { sys::cuMemsetD32Async(s.va, 0x3f80_0000, s.size / 4, stream.cu_stream()) }.result()?;
    let n = (s.size / 4) as u32;
    unsafe { stream.launch_builder(f).arg(&s.va).arg(out).arg(&n).launch(LaunchConfig::for_num_elems(n)) }?;
    unsafe {
        sys::cuMemUnmap(s.va, s.size).result()?; // EXPECT: missing_sync
        sys::cuMemRelease(s.handle).result()?;
        sys::cuMemAddressFree(s.va, s.size).result()?;
    }
    Ok(())
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SRC)?)?.load_function("reduce_into")?;
    let mut out = stream.alloc_zeros::<f32>(1)?;
    reduce_once(&stream, &f, ctx.cu_device(), &mut out)?;
    stream.synchronize()?;
    Ok(())
}
