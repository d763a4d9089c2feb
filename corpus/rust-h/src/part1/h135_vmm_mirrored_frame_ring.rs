//! case: mirrored ring buffer for streaming audio frames built with raw VMM calls (one physical allocation mapped at `base` and at `base + size`, access granted over both, proper unmap/release/free teardown); the producer kernel only writes through its window and the consumer kernel, enqueued after it on the same stream, only reads: no kernel writes through one alias and reads through the other, and stream order completes the writer first
//! expect: none

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const RING_SRC: &str = r#"
extern "C" __global__ void ring_write(float* window, const float* src, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) window[i] = src[i];
}
extern "C" __global__ void window_energy(const float* window, int n, float* energy) {
    __shared__ float part[256];
    float acc = 0.f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) acc += window[i] * window[i];
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) *energy = part[0];
}
"#;

pub struct MirroredRing {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    write_fn: CudaFunction,
    energy_fn: CudaFunction,
    base: sys::CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
    d_energy: CudaSlice<f32>,
    h_energy: PinnedHostSlice<f32>,
    head: usize,
    tail: usize,
}

impl MirroredRing {
    pub fn new(ctx: &Arc<CudaContext>, min_bytes: usize) -> Result<Self, Box<dyn std::error::Error>> {
        ctx.bind_to_thread()?;
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = ctx.ordinal() as i32;
        let mut gran = 0usize;
        let mut base: sys::CUdeviceptr = 0;
        let mut handle: sys::CUmemGenericAllocationHandle = 0;
        let size;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
            size = min_bytes.div_ceil(gran) * gran;
            sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemMap(base, size, 0, handle, 0).result()?;
            sys::cuMemMap(base + size as u64, size, 0, handle, 0).result()?;
            let mut access: sys::CUmemAccessDesc = std::mem::zeroed();
            access.location = prop.location;
            access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            sys::cuMemSetAccess(base, 2 * size, &access, 1).result()?;
        }
        let module = ctx.load_module(compile_ptx(RING_SRC)?)?;
        let stream = ctx.new_stream()?;
        Ok(Self {
            ctx: ctx.clone(),
            d_energy: stream.alloc_zeros::<f32>(1)?,
            h_energy: unsafe { ctx.alloc_pinned_with_flags::<f32>(1, 0)? },
            stream,
            write_fn: module.load_function("ring_write")?,
            energy_fn: module.load_function("window_energy")?,
            base,
            size,
            handle,
            head: 0,
            tail: 0,
        })
    }

    fn capacity(&self) -> usize {
        self.size / std::mem::size_of::<f32>()
    }

    /// Appends a frame already on the device; the write may run past the end into the mirror.
    pub fn push(&mut self, frame: &CudaSlice<f32>) -> Result<(), DriverError> {
        let n = frame.len().min(self.capacity());
        let window = self.base + (self.tail * 4) as u64;
        let n_i = n as i32;
        let mut launch = self.stream.launch_builder(&self.write_fn);
        launch.arg(&window).arg(frame).arg(&n_i);
        unsafe { launch.launch(LaunchConfig::for_num_elems(n as u32)) }?;
        self.tail = (self.tail + n) % self.capacity();
        Ok(())
    }

    /// Energy of the `n` oldest samples, read contiguously through the mirror.
    pub fn pop_energy(&mut self, n: usize) -> Result<f32, DriverError> {
        let window = self.base + (self.head * 4) as u64;
        let n_i = n.min(self.capacity()) as i32;
        let mut launch = self.stream.launch_builder(&self.energy_fn);
        launch.arg(&window).arg(&n_i).arg(&mut self.d_energy);
        unsafe { launch.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 }) }?;
        self.head = (self.head + n) % self.capacity();
        self.stream.memcpy_dtoh(&self.d_energy, &mut self.h_energy)?;
        self.stream.synchronize()?;
        Ok(self.h_energy.as_slice()?[0])
    }
}

impl Drop for MirroredRing {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuMemUnmap(self.base, self.size);
            let _ = sys::cuMemUnmap(self.base + self.size as u64, self.size);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, 2 * self.size);
        }
    }
}
