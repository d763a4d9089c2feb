//! case: a mirrored sample ring (one allocation mapped at base and base+size); the kernel writes through the low view and reads its window through the high view with no fence
//! expect: unfenced_vmm_alias=1
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const RING_SRC: &str = r#"
extern "C" __global__ void push_window(float* lo, const float* hi, const float* src, float* out,
                                       unsigned head, unsigned cap, unsigned n, unsigned w) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned slot = (head + i) % cap;
    if (i < n) lo[slot] = src[i];
    __syncthreads();
    if (i >= n) return;
    // the window ending at `slot` is read through the upper view, so it never wraps
    const float* win = hi + slot - (w - 1);
    float acc = 0.0f;
    for (unsigned k = 0; k < w; ++k) acc += win[k];
    out[i] = acc / (float)w;
}
"#;

pub struct MirroredRing {
    base: sys::CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
    head: u32,
}

impl MirroredRing {
    pub fn new(ctx: &Arc<CudaContext>, min_bytes: usize) -> Result<Self, sys::CUresult> {
        let dev = ctx.cu_device();
        let loc = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev };
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location: loc,
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let access = sys::CUmemAccessDesc { location: loc, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let mut gran = 0usize;
        let mut base = 0;
        let mut handle = 0;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result().map_err(|e| e.0)?;
            let size = min_bytes.div_ceil(gran) * gran;
            sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0).result().map_err(|e| e.0)?;
            sys::cuMemCreate(&mut handle, size, &prop, 0).result().map_err(|e| e.0)?;
            sys::cuMemMap(base, size, 0, handle, 0).result().map_err(|e| e.0)?;
            sys::cuMemMap(base + size as u64, size, 0, handle, 0).result().map_err(|e| e.0)?;
            sys::cuMemSetAccess(base, 2 * size, &access, 1).result().map_err(|e| e.0)?;
            Ok(Self { base, size, handle, head: 0 })
        }
    }

    pub fn capacity(&self) -> u32 {
        (self.size / 4) as u32
    }

    /// Appends `src` and writes, for each new sample, the mean of the last `w` samples.
    pub fn push(&mut self, stream: &Arc<CudaStream>, f: &cudarc::driver::CudaFunction, src: &CudaSlice<f32>, out: &mut CudaSlice<f32>, w: u32) -> Result<(), cudarc::driver::DriverError> {
        let n = src.len() as u32;
        let cap = self.capacity();
        let hi = self.base + self.size as u64;
        let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (n.min(1024), 1, 1), shared_mem_bytes: 0 };
        let mut b = stream.launch_builder(f);
        b.arg(&self.base).arg(&hi).arg(src).arg(out).arg(&self.head).arg(&cap).arg(&n).arg(&w);
        unsafe { b.launch(cfg)? }; // EXPECT: unfenced_vmm_alias
        self.head = (self.head + n) % cap;
        Ok(())
    }
}

impl Drop for MirroredRing {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemUnmap(self.base, self.size);
            let _ = sys::cuMemUnmap(self.base + self.size as u64, self.size);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, 2 * self.size);
        }
    }
}

pub fn smooth(ctx: &Arc<CudaContext>, batches: usize) -> Result<(), Box<dyn std::error::Error>> {
    let module = ctx.load_module(compile_ptx(RING_SRC)?)?;
    let f = module.load_function("push_window")?;
    let stream = ctx.default_stream();
    let mut ring = MirroredRing::new(ctx, 1 << 21).map_err(|e| format!("vmm: {e:?}"))?;
    let src = stream.alloc_zeros::<f32>(512)?;
    let mut out = stream.alloc_zeros::<f32>(512)?;
    for _ in 0..batches {
        ring.push(&stream, &f, &src, &mut out, 16)?;
    }
    stream.synchronize()?;
    Ok(())
}
