//! case: each VMM chunk of a streaming scratch space is an RAII value whose Drop synchronizes the stream its kernels ran on before cuMemUnmap, cuMemRelease and cuMemAddressFree; chunks are dropped while retiring old generations
//! expect: none

use std::collections::VecDeque;
use std::error::Error;
use std::mem::zeroed;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const PREFIX_SRC: &str = r#"
extern "C" __global__ void iota_u32(unsigned* out, unsigned start, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = start + i;
}
"#;

struct MappedChunk {
    va: sys::CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
    stream: Arc<CudaStream>,
}

impl MappedChunk {
    fn new(stream: Arc<CudaStream>, device: i32, size: usize) -> Result<Self, DriverError> {
        let mut prop: sys::CUmemAllocationProp = unsafe { zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        let access = sys::CUmemAccessDesc {
            location: prop.location,
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        let (mut va, mut handle) = (0, 0);
        unsafe {
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemAddressReserve(&mut va, size, 0, 0, 0).result()?;
            sys::cuMemMap(va, size, 0, handle, 0).result()?;
            sys::cuMemSetAccess(va, size, &access, 1).result()?;
        }
        Ok(Self { va, size, handle, stream })
    }
}

impl Drop for MappedChunk {
    fn drop(&mut self) {
        // cuMemUnmap does not wait for the GPU: kernels writing this chunk must be done first.
        let _ = self.stream.synchronize();
        unsafe {
            let _ = sys::cuMemUnmap(self.va, self.size);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.va, self.size);
        }
    }
}

pub struct Scratch {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    iota: CudaFunction,
    chunk_bytes: usize,
    generations: VecDeque<MappedChunk>,
    keep: usize,
}

impl Scratch {
    pub fn new(ctx: Arc<CudaContext>, chunk_bytes: usize, keep: usize) -> Result<Self, Box<dyn Error>> {
        let stream = ctx.new_stream()?;
        let iota = ctx.load_module(compile_ptx(PREFIX_SRC)?)?.load_function("iota_u32")?;
        Ok(Self { ctx, stream, iota, chunk_bytes, generations: VecDeque::new(), keep })
    }

    /// Starts a new generation of indices and retires the oldest ones beyond `keep`.
    pub fn next_generation(&mut self, start: u32) -> Result<sys::CUdeviceptr, DriverError> {
        let chunk = MappedChunk::new(self.stream.clone(), self.ctx.ordinal() as i32, self.chunk_bytes)?;
        let (out, n) = (chunk.va, (self.chunk_bytes / 4) as u32);
        unsafe {
            self.stream.launch_builder(&self.iota).arg(&out).arg(&start).arg(&n).launch(LaunchConfig::for_num_elems(n))?;
        }
        self.generations.push_back(chunk);
        while self.generations.len() > self.keep {
            self.generations.pop_front();
        }
        Ok(out)
    }
}
