//! case: a mirrored ring buffer (one cuMemCreate allocation mapped at base and base+size); the append kernel writes through the first view and reads the window through the mirror without fence.proxy.alias
//! expect: unfenced_vmm_alias=1
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const RING_SRC: &str = r#"
extern "C" __global__ void ring_append(float* ring, const float* mirror, float* window_sum,
                                       const float* incoming, unsigned head, unsigned count,
                                       unsigned window) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) ring[head + i] = incoming[i];
    __syncthreads();
    if (i < count) {
        float s = 0.0f;
        // the window ends at the element just written; the mirror makes it contiguous even across the wrap
        for (unsigned k = 0; k < window; ++k) s += mirror[(int)(head + i + 1) - (int)window + (int)k];
        window_sum[i] = s;
    }
}
"#;

fn prop(dev: i32) -> sys::CUmemAllocationProp {
    let mut p: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    p.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = dev;
    p
}

pub struct MirroredRing {
    base: CUdeviceptr,
    size: usize,
    handle: CUmemGenericAllocationHandle,
}

impl MirroredRing {
    pub fn new(ctx: &Arc<CudaContext>, min_bytes: usize) -> Result<Self, DriverError> {
        let p = prop(ctx.cu_device());
        let mut gran = 0usize;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &p, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
        }
        let size = min_bytes.div_ceil(gran) * gran;
        let mut handle = 0;
        let mut base = 0;
        unsafe {
            sys::cuMemCreate(&mut handle, size, &p, 0).result()?;
            sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0).result()?;
            sys::cuMemMap(base, size, 0, handle, 0).result()?;
            sys::cuMemMap(base + size as u64, size, 0, handle, 0).result()?;
            let access = sys::CUmemAccessDesc {
                location: p.location,
                flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
            };
            sys::cuMemSetAccess(base, 2 * size, &access, 1).result()?;
        }
        Ok(MirroredRing { base, size, handle })
    }

    fn mirror(&self) -> CUdeviceptr {
        self.base + self.size as u64
    }

    pub fn append(&self, stream: &Arc<CudaStream>, f: &CudaFunction, incoming: &cudarc::driver::CudaSlice<f32>,
                  sums: &mut cudarc::driver::CudaSlice<f32>, head: u32, window: u32) -> Result<(), DriverError> {
        let count = incoming.len() as u32;
        let mirror = self.mirror();
        let mut b = stream.launch_builder(f);
        b.arg(&self.base).arg(&mirror).arg(sums).arg(incoming).arg(&head).arg(&count).arg(&window);
        unsafe { b.launch(LaunchConfig::for_num_elems(count)) }?; // EXPECT: unfenced_vmm_alias
        Ok(())
    }
}

impl Drop for MirroredRing {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemUnmap(self.base, self.size);
            let _ = sys::cuMemUnmap(self.mirror(), self.size);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, 2 * self.size);
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(RING_SRC)?)?;
    let f = module.load_function("ring_append")?;
    let ring = MirroredRing::new(&ctx, 1 << 20)?;
    let incoming = stream.alloc_zeros::<f32>(256)?;
    let mut sums = stream.alloc_zeros::<f32>(256)?;
    let slots = (ring.size / 4) as u32;
    for step in 0..16u32 {
        let head = (step * 256) % slots;
        ring.append(&stream, &f, &incoming, &mut sums, head, 64)?;
    }
    stream.synchronize()?;
    Ok(())
}
