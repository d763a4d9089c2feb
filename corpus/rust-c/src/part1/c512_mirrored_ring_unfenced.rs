//! case: an audio DSP ring buffer mirrored with VMM (one physical allocation mapped at `base` and `base + size`); one kernel writes the new sample through the low mapping and reads its window back through the high one, with no `fence.proxy.alias` in the kernel
//! expect: unfenced_vmm_alias=1
use std::sync::Arc;

use cudarc::driver::{result::DriverError, sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const RING_SRC: &str = r#"
extern "C" __global__ void push_and_window(float* lo, const float* hi, const float* samples,
                                           float* window_sum, int head, int cap, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int slot = (head + i) % cap;
    lo[slot] = samples[i];
    __syncthreads();
    // hi[k] is lo[k] one ring length later: the 4-tap window never wraps in this view.
    float acc = 0.0f;
    for (int t = 0; t < 4; ++t) acc += hi[slot - t];
    window_sum[i] = acc;
}
"#;

pub struct MirroredRing {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    base: sys::CUdeviceptr,
    bytes: usize,
    handle: sys::CUmemGenericAllocationHandle,
    head: i32,
}

impl MirroredRing {
    /// `bytes` must be a multiple of the VMM granularity.
    pub fn new(ctx: &Arc<CudaContext>, bytes: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        let kernel = ctx.load_module(compile_ptx(RING_SRC)?)?.load_function("push_and_window")?;
        let loc = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: ctx.ordinal() as i32 };
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location = loc;
        let access = sys::CUmemAccessDesc { location: loc, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let (mut base, mut handle) = (0, 0);
        unsafe {
            sys::cuMemAddressReserve(&mut base, 2 * bytes, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
            sys::cuMemMap(base, bytes, 0, handle, 0).result()?;
            sys::cuMemMap(base + bytes as u64, bytes, 0, handle, 0).result()?;
            sys::cuMemSetAccess(base, bytes, &access, 1).result()?;
            sys::cuMemSetAccess(base + bytes as u64, bytes, &access, 1).result()?;
            sys::cuMemsetD8Async(base, 0, bytes, stream.cu_stream()).result()?;
        }
        Ok(Self { stream, kernel, base, bytes, handle, head: 0 })
    }

    pub fn push(&mut self, samples: &CudaSlice<f32>, sums: &mut CudaSlice<f32>) -> Result<(), DriverError> {
        let cap = (self.bytes / 4) as i32;
        let n = samples.len() as i32;
        let lo = self.base;
        let hi = self.base + self.bytes as u64;
        let cfg = LaunchConfig { grid_dim: ((n as u32).div_ceil(256), 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        let head = self.head;
        unsafe { self.stream.launch_builder(&self.kernel).arg(&lo).arg(&hi).arg(samples).arg(sums).arg(&head).arg(&cap).arg(&n).launch(cfg)? }; // EXPECT: unfenced_vmm_alias
        self.head = (self.head + n) % cap;
        Ok(())
    }
}

impl Drop for MirroredRing {
    fn drop(&mut self) {
        unsafe {
            let _ = self.stream.synchronize();
            let _ = sys::cuMemUnmap(self.base, self.bytes);
            let _ = sys::cuMemUnmap(self.base + self.bytes as u64, self.bytes);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, 2 * self.bytes);
        }
    }
}
