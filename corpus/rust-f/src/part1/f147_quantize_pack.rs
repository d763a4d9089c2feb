//! case: a zero-copy "reinterpret" trick: one `cuMemCreate` allocation is mapped at two addresses and each mapping is wrapped in its own cudarc `CudaSlice` (`upgrade_device_ptr`) on its own stream; the quantize kernel writes through the first slice and the pack kernel reads through the second, and cudarc's per-slice events never order work on one slice after work on the other
//! expect: unfenced_vmm_alias=1

use std::error::Error;
use std::mem::MaybeUninit;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::{CudaContext, CudaSlice, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const QUANT_SRC: &str = r#"
extern "C" __global__ void quantize(const float* x, unsigned char* q, unsigned int n, float scale)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i] * scale + 128.0f; q[i] = (unsigned char)fminf(fmaxf(v, 0.0f), 255.0f); }
}

extern "C" __global__ void pack_nibbles(const unsigned char* q, unsigned char* packed, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (2 * i + 1 < n) packed[i] = (q[2 * i] & 0xf0) | (q[2 * i + 1] >> 4);
}

extern "C" __global__ void ramp(float* x, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = (float)(i % 512) / 256.0f - 1.0f;
}
"#;

struct DoubleMapping {
    views: [CUdeviceptr; 2],
    size: usize,
    handle: CUmemGenericAllocationHandle,
}

fn map_twice(ordinal: i32, bytes: usize) -> Result<DoubleMapping, DriverError> {
    let mut prop: sys::CUmemAllocationProp = unsafe { MaybeUninit::zeroed().assume_init() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = ordinal;
    let access = sys::CUmemAccessDesc { location: prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    let mut gran = 0usize;
    let mut handle: CUmemGenericAllocationHandle = 0;
    let mut views: [CUdeviceptr; 2] = [0; 2];
    unsafe {
        sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
            .result()?;
        let size = bytes.div_ceil(gran) * gran;
        sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
        for v in views.iter_mut() {
            sys::cuMemAddressReserve(v, size, 0, 0, 0).result()?;
            sys::cuMemMap(*v, size, 0, handle, 0).result()?;
            sys::cuMemSetAccess(*v, size, &access, 1).result()?;
        }
        Ok(DoubleMapping { views, size, handle })
    }
}

pub fn quantize_and_pack(n: usize, scale: f32) -> Result<u64, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let quant_stream = ctx.new_stream()?;
    let pack_stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(QUANT_SRC)?)?;
    let (quantize, pack, ramp) = (module.load_function("quantize")?, module.load_function("pack_nibbles")?, module.load_function("ramp")?);

    let area = map_twice(ctx.ordinal() as i32, n)?;
    let mut q_write: CudaSlice<u8> = unsafe { quant_stream.upgrade_device_ptr(area.views[0], n) };
    let q_read: CudaSlice<u8> = unsafe { pack_stream.upgrade_device_ptr(area.views[1], n) };

    let n32 = n as u32;
    let mut x = quant_stream.alloc_zeros::<f32>(n)?;
    let mut packed = pack_stream.alloc_zeros::<u8>(n / 2)?;
    let cfg = LaunchConfig::for_num_elems(n32);
    unsafe {
        quant_stream.launch_builder(&ramp).arg(&mut x).arg(&n32).launch(cfg)?;
        quant_stream.launch_builder(&quantize).arg(&x).arg(&mut q_write).arg(&n32).arg(&scale).launch(cfg)?;
        pack_stream.launch_builder(&pack).arg(&q_read).arg(&mut packed).arg(&n32).launch(cfg)?; // EXPECT: unfenced_vmm_alias
    }
    quant_stream.synchronize()?;
    pack_stream.synchronize()?;

    let mut host = unsafe { ctx.alloc_pinned_with_flags::<u8>(n / 2, 0)? };
    pack_stream.memcpy_dtoh(&packed, &mut host)?;
    let checksum = host.as_slice()?.iter().map(|&b| b as u64).sum();

    // the views are VMM mappings: take them back from cudarc before unmapping
    let _ = q_write.leak();
    let _ = q_read.leak();
    unsafe {
        for v in area.views {
            sys::cuMemUnmap(v, area.size).result()?;
            sys::cuMemAddressFree(v, area.size).result()?;
        }
        sys::cuMemRelease(area.handle).result()?;
    }
    Ok(checksum)
}

pub fn run() -> Result<(), Box<dyn Error>> {
    println!("checksum {}", quantize_and_pack(1 << 24, 64.0)?);
    Ok(())
}
