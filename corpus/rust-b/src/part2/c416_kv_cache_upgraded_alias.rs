//! case: a KV cache whose VMM pages are mapped twice and wrapped as cudarc slices (upgrade_device_ptr); the append-and-attend kernel writes the new token through one and reads every token through the other, unfenced
//! expect: unfenced_vmm_alias=1
use std::mem::ManuallyDrop;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const ATTN_SRC: &str = r#"
extern "C" __global__ void append_attend(float* cache, const float* cache_ro, const float* k_new,
                                         const float* q, float* scores, unsigned pos, unsigned d) {
    unsigned j = threadIdx.x;
    if (j >= d) return;
    cache[pos * d + j] = k_new[j];
    for (unsigned t = 0; t <= pos; ++t) {
        atomicAdd(&scores[t], q[j] * cache_ro[t * d + j]);
    }
}
"#;

pub struct KvCache {
    stream: Arc<CudaStream>,
    rw: ManuallyDrop<CudaSlice<f32>>,
    ro: ManuallyDrop<CudaSlice<f32>>,
    vas: [sys::CUdeviceptr; 2],
    bytes: usize,
    handle: sys::CUmemGenericAllocationHandle,
    len: u32,
}

impl KvCache {
    pub fn new(ctx: &Arc<CudaContext>, max_tokens: usize, d: usize) -> Result<Self, DriverError> {
        let loc = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: ctx.cu_device() };
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location: loc,
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let access = sys::CUmemAccessDesc { location: loc, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let mut gran = 0usize;
        let mut handle = 0;
        let mut vas = [0u64; 2];
        let bytes;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
            bytes = (max_tokens * d * 4).div_ceil(gran) * gran;
            sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
            sys::cuMemAddressReserve(&mut vas[0], bytes, 0, 0, 0).result()?;
            sys::cuMemMap(vas[0], bytes, 0, handle, 0).result()?;
            sys::cuMemSetAccess(vas[0], bytes, &access, 1).result()?;
            sys::cuMemAddressReserve(&mut vas[1], bytes, 0, 0, 0).result()?;
            sys::cuMemMap(vas[1], bytes, 0, handle, 0).result()?;
            sys::cuMemSetAccess(vas[1], bytes, &access, 1).result()?;
        }
        let stream = ctx.default_stream();
        // Wrapped so the launch builder can take them; never dropped as CudaSlices (cudarc would free them).
        let rw = ManuallyDrop::new(unsafe { stream.upgrade_device_ptr::<f32>(vas[0], bytes / 4) });
        let ro = ManuallyDrop::new(unsafe { stream.upgrade_device_ptr::<f32>(vas[1], bytes / 4) });
        Ok(Self { stream, rw, ro, vas, bytes, handle, len: 0 })
    }

    pub fn step(&mut self, f: &cudarc::driver::CudaFunction, k_new: &CudaSlice<f32>, q: &CudaSlice<f32>, scores: &mut CudaSlice<f32>) -> Result<(), DriverError> {
        let d = k_new.len() as u32;
        let pos = self.len;
        let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (d, 1, 1), shared_mem_bytes: 0 };
        let mut b = self.stream.launch_builder(f);
        b.arg(&mut *self.rw).arg(&*self.ro).arg(k_new).arg(q).arg(scores).arg(&pos).arg(&d);
        unsafe { b.launch(cfg)? }; // EXPECT: unfenced_vmm_alias
        self.len += 1;
        Ok(())
    }
}

impl Drop for KvCache {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            for va in self.vas {
                let _ = sys::cuMemUnmap(va, self.bytes);
                let _ = sys::cuMemAddressFree(va, self.bytes);
            }
            let _ = sys::cuMemRelease(self.handle);
        }
    }
}

pub fn decode(ctx: &Arc<CudaContext>, tokens: usize) -> Result<(), Box<dyn std::error::Error>> {
    let f = ctx.load_module(compile_ptx(ATTN_SRC)?)?.load_function("append_attend")?;
    let mut cache = KvCache::new(ctx, 4096, 128)?;
    let stream = ctx.default_stream();
    let k_new = stream.alloc_zeros::<f32>(128)?;
    let q = stream.alloc_zeros::<f32>(128)?;
    let mut scores = stream.alloc_zeros::<f32>(4096)?;
    for _ in 0..tokens.min(4096) {
        cache.step(&f, &k_new, &q, &mut scores)?;
    }
    stream.synchronize()?;
    Ok(())
}
