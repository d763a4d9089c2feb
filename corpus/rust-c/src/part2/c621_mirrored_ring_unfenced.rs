//! case: a mirrored ring buffer maps one physical allocation at `base` and at `base + size`; one kernel appends samples through the first view and reads its sliding window through the second view, and its CUDA source has no `fence.proxy.alias`
//! expect: unfenced_vmm_alias=1

use std::error::Error;
use std::mem::zeroed;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

// One block per launch: the writes and the window reads of a launch are ordered by __syncthreads.
const RING_SRC: &str = r#"
extern "C" __global__ void push_and_smooth(float* ring, const float* mirror, const float* in, float* out,
                                           unsigned head, unsigned n, unsigned cap, unsigned window) {
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) ring[(head + i) % cap] = in[i];
    __syncthreads();
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) {
        // mirror == ring + cap, and mirror[-j] == ring[cap - j]: a window that wraps needs no modulo.
        int p = (int)((head + i) % cap);
        float acc = 0.0f;
        for (int k = p + 1 - (int)window; k <= p; ++k) acc += mirror[k];
        out[i] = acc / window;
    }
}
"#;

pub struct MirroredRing {
    _ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    base: sys::CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
    head: usize,
}

impl MirroredRing {
    pub fn new(ctx: Arc<CudaContext>, min_bytes: usize) -> Result<Self, Box<dyn Error>> {
        ctx.bind_to_thread()?;
        let mut prop: sys::CUmemAllocationProp = unsafe { zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = ctx.ordinal() as i32;
        let mut gran = 0;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
                .result()?;
        }
        let size = min_bytes.div_ceil(gran) * gran;
        let access = sys::CUmemAccessDesc { location: prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let (mut base, mut handle) = (0, 0);
        unsafe {
            sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemMap(base, size, 0, handle, 0).result()?;
            sys::cuMemMap(base + size as u64, size, 0, handle, 0).result()?;
            sys::cuMemSetAccess(base, 2 * size, &access, 1).result()?;
        }
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(RING_SRC)?)?.load_function("push_and_smooth")?;
        Ok(Self { _ctx: ctx, stream, kernel, base, size, handle, head: 0 })
    }

    pub fn capacity(&self) -> usize {
        self.size / 4
    }

    /// Appends `input` and writes the moving average ending at each new sample into `out`.
    pub fn push(&mut self, input: &CudaSlice<f32>, out: &mut CudaSlice<f32>, window: u32) -> Result<(), Box<dyn Error>> {
        let cap = self.capacity() as u32;
        let (ring, mirror) = (self.base, self.base + self.size as u64);
        let (head, n) = (self.head as u32, input.len() as u32);
        let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1024, 1, 1), shared_mem_bytes: 0 };
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(&ring).arg(&mirror).arg(input).arg(out);
        launch.arg(&head).arg(&n).arg(&cap).arg(&window);
        unsafe { launch.launch(cfg)? }; // EXPECT: unfenced_vmm_alias
        self.head = (self.head + input.len()) % self.capacity();
        Ok(())
    }
}

impl Drop for MirroredRing {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            sys::cuMemUnmap(self.base, self.size);
            sys::cuMemUnmap(self.base + self.size as u64, self.size);
            sys::cuMemRelease(self.handle);
            sys::cuMemAddressFree(self.base, 2 * self.size);
        }
    }
}
