//! case: two VMM aliases wrapped as cudarc CudaSlices (upgrade_device_ptr) on two streams; cudarc's per-slice events do not order the reader after the writer
//! expect: unfenced_vmm_alias=1
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void fill_keys(unsigned* keys, unsigned n, unsigned salt) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) keys[i] = (i * 2654435761u) ^ salt;
}
extern "C" __global__ void bucket_count(const unsigned* keys, unsigned* buckets, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&buckets[keys[i] & 1023u], 1u);
}
"#;

fn map_alias(handle: sys::CUmemGenericAllocationHandle, size: usize, loc: sys::CUmemLocation) -> Result<CUdeviceptr, DriverError> {
    let mut va = 0;
    unsafe {
        sys::cuMemAddressReserve(&mut va, size, 0, 0, 0).result()?;
        sys::cuMemMap(va, size, 0, handle, 0).result()?;
        let d = sys::CUmemAccessDesc { location: loc, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        sys::cuMemSetAccess(va, size, &d, 1).result()?;
    }
    Ok(va)
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let writer: Arc<CudaStream> = ctx.new_stream()?;
    let reader: Arc<CudaStream> = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let fill = module.load_function("fill_keys")?;
    let count = module.load_function("bucket_count")?;

    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = ctx.cu_device();
    let size = 2 << 20;
    let mut handle = 0;
    unsafe { sys::cuMemCreate(&mut handle, size, &prop, 0) }.result()?;
    let va_w = map_alias(handle, size, prop.location)?;
    let va_r = map_alias(handle, size, prop.location)?;

    let n = (size / 4) as u32;
    let mut keys_w: CudaSlice<u32> = unsafe { writer.upgrade_device_ptr(va_w, n as usize) };
    let keys_r: CudaSlice<u32> = unsafe { reader.upgrade_device_ptr(va_r, n as usize) };
    let mut buckets = reader.alloc_zeros::<u32>(1024)?;
    let cfg = LaunchConfig::for_num_elems(n);
    let salt = 0x5eed_u32;

    unsafe { writer.launch_builder(&fill).arg(&mut keys_w).arg(&n).arg(&salt).launch(cfg) }?;
    unsafe { reader.launch_builder(&count).arg(&keys_r).arg(&mut buckets).arg(&n).launch(cfg) }?; // EXPECT: unfenced_vmm_alias

    writer.synchronize()?;
    reader.synchronize()?;
    // hand the addresses back to the VMM calls: cuMemFree must not see them
    let (w, r) = (keys_w.leak(), keys_r.leak());
    unsafe {
        for va in [w, r] {
            sys::cuMemUnmap(va, size).result()?;
            sys::cuMemAddressFree(va, size).result()?;
        }
        sys::cuMemRelease(handle).result()?;
    }
    Ok(())
}
