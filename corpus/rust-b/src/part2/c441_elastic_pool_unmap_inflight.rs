//! case: an elastic VMM pool compacts its last chunk with a kernel and unmaps the chunk right away, while the compaction kernel may still read it
//! expect: missing_sync=1
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const COMPACT_SRC: &str = r#"
extern "C" __global__ void compact(const unsigned* src, const unsigned* live, unsigned* dst, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && live[i]) dst[i] = src[i];
}
"#;

pub struct ElasticPool {
    stream: Arc<CudaStream>,
    compact: CudaFunction,
    base: sys::CUdeviceptr,
    chunk: usize,
    max_chunks: usize,
    handles: Vec<sys::CUmemGenericAllocationHandle>,
    live: sys::CUdeviceptr,
}

impl ElasticPool {
    pub fn new(ctx: &Arc<CudaContext>, chunk: usize, chunks: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let loc = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: ctx.cu_device() };
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location: loc,
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let desc = sys::CUmemAccessDesc { location: loc, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let (mut base, mut live) = (0, 0);
        let mut handles = Vec::with_capacity(chunks);
        unsafe {
            sys::cuMemAddressReserve(&mut base, chunk * chunks, 0, 0, 0).result()?;
            for i in 0..chunks {
                let mut h = 0;
                sys::cuMemCreate(&mut h, chunk, &prop, 0).result()?;
                sys::cuMemMap(base + (i * chunk) as u64, chunk, 0, h, 0).result()?;
                handles.push(h);
            }
            sys::cuMemSetAccess(base, chunk * chunks, &desc, 1).result()?;
            sys::cuMemAlloc_v2(&mut live, chunk).result()?;
        }
        let compact = ctx.load_module(compile_ptx(COMPACT_SRC)?)?.load_function("compact")?;
        Ok(Self { stream: ctx.new_stream()?, compact, base, chunk, max_chunks: chunks, handles, live })
    }

    /// Moves the live entries of the last chunk into chunk 0 and gives the last chunk's memory back.
    pub fn shrink(&mut self) -> Result<(), DriverError> {
        if self.handles.len() < 2 {
            return Ok(());
        }
        let last = self.handles.len() - 1;
        let src = self.base + (last * self.chunk) as u64;
        let n = (self.chunk / 4) as u32;
        unsafe {
            self.stream.launch_builder(&self.compact).arg(&src).arg(&self.live).arg(&self.base).arg(&n).launch(LaunchConfig::for_num_elems(n))?;
        }
        let h = self.handles.pop().expect("checked above");
        unsafe {
            sys::cuMemUnmap(src, self.chunk).result()?; // EXPECT: missing_sync
            sys::cuMemRelease(h).result()?;
        }
        Ok(())
    }
}

impl Drop for ElasticPool {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            for (i, h) in self.handles.drain(..).enumerate() {
                let _ = sys::cuMemUnmap(self.base + (i * self.chunk) as u64, self.chunk);
                let _ = sys::cuMemRelease(h);
            }
            let _ = sys::cuMemAddressFree(self.base, self.chunk * self.max_chunks);
            let _ = sys::cuMemFree_v2(self.live);
        }
    }
}
