//! case: a growable device vector over a large VA reservation; every new chunk is mapped and granted access by a helper before any kernel touches it
//! expect: none
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const INIT_SRC: &str = r#"
extern "C" __global__ void iota(unsigned* v, unsigned start, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = start + i;
}
"#;

fn grant_device_access(va: CUdeviceptr, size: usize, device: i32) -> Result<(), DriverError> {
    let desc = sys::CUmemAccessDesc {
        location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device },
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    };
    unsafe { sys::cuMemSetAccess(va, size, &desc, 1) }.result()
}

pub struct GrowVec {
    base: CUdeviceptr,
    reserved: usize,
    chunk: usize,
    chunks: Vec<sys::CUmemGenericAllocationHandle>,
    device: i32,
}

impl GrowVec {
    pub fn new(device: i32, reserved: usize, chunk: usize) -> Result<Self, DriverError> {
        let mut base = 0;
        unsafe { sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0) }.result()?;
        Ok(GrowVec { base, reserved, chunk, chunks: Vec::new(), device })
    }

    pub fn mapped_bytes(&self) -> usize {
        self.chunks.len() * self.chunk
    }

    /// Maps one more chunk at the end and makes it usable.
    pub fn grow(&mut self) -> Result<CUdeviceptr, DriverError> {
        assert!(self.mapped_bytes() + self.chunk <= self.reserved, "reservation exhausted");
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = self.device;
        let mut h = 0;
        let at = self.base + self.mapped_bytes() as u64;
        unsafe {
            sys::cuMemCreate(&mut h, self.chunk, &prop, 0).result()?;
            sys::cuMemMap(at, self.chunk, 0, h, 0).result()?;
        }
        grant_device_access(at, self.chunk, self.device)?;
        self.chunks.push(h);
        Ok(at)
    }
}

impl Drop for GrowVec {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            for (i, h) in self.chunks.drain(..).enumerate() {
                let _ = sys::cuMemUnmap(self.base + (i * self.chunk) as u64, self.chunk);
                let _ = sys::cuMemRelease(h);
            }
            let _ = sys::cuMemAddressFree(self.base, self.reserved);
        }
    }
}

fn fill_chunk(stream: &Arc<CudaStream>, f: &CudaFunction, at: CUdeviceptr, start: u32, n: u32) -> Result<(), DriverError> {
    unsafe { stream.launch_builder(f).arg(&at).arg(&start).arg(&n).launch(LaunchConfig::for_num_elems(n)) }.map(|_| ())
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(INIT_SRC)?)?.load_function("iota")?;
    let mut v = GrowVec::new(ctx.cu_device(), 64 << 20, 2 << 20)?;
    let per_chunk = ((2 << 20) / 4) as u32;
    for k in 0..4u32 {
        let at = v.grow()?;
        fill_chunk(&stream, &f, at, k * per_chunk, per_chunk)?;
    }
    stream.synchronize()?;
    Ok(())
}
