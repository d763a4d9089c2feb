//! case: a list of Box<dyn Pass> run in order on one stream; the write pass uses one VMM alias and the read pass the other, so stream order separates them
//! expect: none
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void encode(float* packed, const float* src, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) packed[i] = src[i] * 0.25f;
}
extern "C" __global__ void decode(const float* packed, float* dst, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = packed[i] * 4.0f;
}
"#;

trait Pass {
    fn name(&self) -> &str;
    fn enqueue(&self, stream: &Arc<CudaStream>, bufs: &mut Buffers) -> Result<(), DriverError>;
}

struct Buffers {
    packed_w: CUdeviceptr,
    packed_r: CUdeviceptr,
    src: CudaSlice<f32>,
    dst: CudaSlice<f32>,
    n: u32,
}

struct Encode(CudaFunction);
struct Decode(CudaFunction);

impl Pass for Encode {
    fn name(&self) -> &str { "encode" }
    fn enqueue(&self, stream: &Arc<CudaStream>, b: &mut Buffers) -> Result<(), DriverError> {
        let mut l = stream.launch_builder(&self.0);
        l.arg(&b.packed_w).arg(&b.src).arg(&b.n);
        unsafe { l.launch(LaunchConfig::for_num_elems(b.n)) }.map(|_| ())
    }
}

impl Pass for Decode {
    fn name(&self) -> &str { "decode" }
    fn enqueue(&self, stream: &Arc<CudaStream>, b: &mut Buffers) -> Result<(), DriverError> {
        let mut l = stream.launch_builder(&self.0);
        l.arg(&b.packed_r).arg(&mut b.dst).arg(&b.n);
        unsafe { l.launch(LaunchConfig::for_num_elems(b.n)) }.map(|_| ())
    }
}

fn alias(handle: sys::CUmemGenericAllocationHandle, size: usize, loc: sys::CUmemLocation) -> Result<CUdeviceptr, DriverError> {
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
    let stream = ctx.default_stream();
    let m = ctx.load_module(compile_ptx(SRC)?)?;
    let passes: Vec<Box<dyn Pass>> = vec![
        Box::new(Encode(m.load_function("encode")?)),
        Box::new(Decode(m.load_function("decode")?)),
    ];
    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = ctx.cu_device();
    let size = 2 << 20;
    let mut handle = 0;
    unsafe { sys::cuMemCreate(&mut handle, size, &prop, 0) }.result()?;
    let n = (size / 4) as u32;
    let mut bufs = Buffers {
        packed_w: alias(handle, size, prop.location)?,
        packed_r: alias(handle, size, prop.location)?,
        src: stream.alloc_zeros(n as usize)?,
        dst: stream.alloc_zeros(n as usize)?,
        n,
    };
    for p in &passes {
        p.enqueue(&stream, &mut bufs)?;
        println!("queued {}", p.name());
    }
    stream.synchronize()?;
    unsafe {
        for va in [bufs.packed_w, bufs.packed_r] {
            sys::cuMemUnmap(va, size).result()?;
            sys::cuMemAddressFree(va, size).result()?;
        }
        sys::cuMemRelease(handle).result()?;
    }
    Ok(())
}
