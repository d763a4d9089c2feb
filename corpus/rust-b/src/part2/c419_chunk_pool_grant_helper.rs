//! case: a chunk pool that grants read-write access in a helper right after each cuMemMap, before any kernel uses the chunk; Drop unmaps, releases, then frees the range
//! expect: none
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const INIT_SRC: &str = r#"
extern "C" __global__ void init_chunk(float* c, unsigned n, float v) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = v;
}
"#;

fn location(dev: i32) -> sys::CUmemLocation {
    sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev }
}

/// Grants `dev` read-write access to `[va, va + bytes)`.
fn grant_rw(va: sys::CUdeviceptr, bytes: usize, dev: i32) -> Result<(), DriverError> {
    let desc = sys::CUmemAccessDesc { location: location(dev), flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    unsafe { sys::cuMemSetAccess(va, bytes, &desc, 1).result() }
}

pub struct ChunkPool {
    dev: i32,
    base: sys::CUdeviceptr,
    chunk_bytes: usize,
    max_chunks: usize,
    chunks: Vec<sys::CUmemGenericAllocationHandle>,
}

impl ChunkPool {
    pub fn new(dev: i32, chunk_bytes: usize, max_chunks: usize) -> Result<Self, DriverError> {
        let mut base = 0;
        unsafe { sys::cuMemAddressReserve(&mut base, chunk_bytes * max_chunks, 0, 0, 0).result()? };
        Ok(Self { dev, base, chunk_bytes, max_chunks, chunks: Vec::new() })
    }

    /// Maps one more chunk and returns its address.
    pub fn map_chunk(&mut self) -> Result<sys::CUdeviceptr, DriverError> {
        assert!(self.chunks.len() < self.max_chunks, "pool exhausted");
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location: location(self.dev),
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let va = self.base + (self.chunks.len() * self.chunk_bytes) as u64;
        let mut h = 0;
        unsafe {
            sys::cuMemCreate(&mut h, self.chunk_bytes, &prop, 0).result()?;
            sys::cuMemMap(va, self.chunk_bytes, 0, h, 0).result()?;
        }
        self.chunks.push(h);
        grant_rw(va, self.chunk_bytes, self.dev)?;
        Ok(va)
    }
}

impl Drop for ChunkPool {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            for (i, h) in self.chunks.drain(..).enumerate() {
                let _ = sys::cuMemUnmap(self.base + (i * self.chunk_bytes) as u64, self.chunk_bytes);
                let _ = sys::cuMemRelease(h);
            }
            let _ = sys::cuMemAddressFree(self.base, self.chunk_bytes * self.max_chunks);
        }
    }
}

pub fn fill_chunks(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, count: usize) -> Result<(), Box<dyn std::error::Error>> {
    let f = ctx.load_module(compile_ptx(INIT_SRC)?)?.load_function("init_chunk")?;
    let mut pool = ChunkPool::new(ctx.cu_device(), 2 << 20, 64)?;
    let n = ((2 << 20) / 4) as u32;
    for k in 0..count {
        let va = pool.map_chunk()?;
        let v = k as f32;
        unsafe { stream.launch_builder(&f).arg(&va).arg(&n).arg(&v).launch(LaunchConfig::for_num_elems(n))? };
    }
    stream.synchronize()?;
    Ok(())
}
