//! case: a global caching allocator (a `LazyLock<Mutex<HashMap>>` of free blocks over `cuMemAlloc`) makes a released block reusable at once, with no stream attached; a layer releases its scratch right after enqueuing the kernel that reads it on stream A, and the next allocation, on stream B, gets the same block and zeroes it while that kernel may still read it
//! expect: missing_sync=1

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void square_into(const float* x, float* tmp, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tmp[i] = x[i] * x[i];
}
extern "C" __global__ void rms_scale(const float* tmp, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = rsqrtf(tmp[i] + 1e-6f);
}
"#;

#[derive(Default)]
pub struct BlockCache {
    free: Mutex<HashMap<usize, Vec<CUdeviceptr>>>,
}

impl BlockCache {
    pub fn alloc(&self, bytes: usize) -> Result<CUdeviceptr, DriverError> {
        if let Some(p) = self.free.lock().unwrap().get_mut(&bytes).and_then(Vec::pop) {
            return Ok(p);
        }
        let mut p = 0;
        unsafe { sys::cuMemAlloc_v2(&mut p, bytes).result()? };
        Ok(p)
    }

    /// Returns a block to the cache; it can be handed out again immediately.
    pub fn release(&self, ptr: CUdeviceptr, bytes: usize) {
        self.free.lock().unwrap().entry(bytes).or_default().push(ptr);
    }
}

pub static CACHE: LazyLock<BlockCache> = LazyLock::new(BlockCache::default);

pub struct RmsLayer {
    main: Arc<CudaStream>,
    side: Arc<CudaStream>,
    square: CudaFunction,
    scale: CudaFunction,
}

impl RmsLayer {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let m = ctx.load_module(compile_ptx(SRC)?)?;
        Ok(Self { main: ctx.new_stream()?, side: ctx.new_stream()?, square: m.load_function("square_into")?, scale: m.load_function("rms_scale")? })
    }

    pub fn forward(&self, x: CUdeviceptr, y: CUdeviceptr, n: u32) -> Result<CUdeviceptr, DriverError> {
        let bytes = n as usize * 4;
        let tmp = CACHE.alloc(bytes)?;
        let cfg = LaunchConfig::for_num_elems(n);
        let mut sq = self.main.launch_builder(&self.square);
        sq.arg(&x).arg(&tmp).arg(&n);
        unsafe { sq.launch(cfg) }?;
        let mut sc = self.main.launch_builder(&self.scale);
        sc.arg(&tmp).arg(&y).arg(&n);
        unsafe { sc.launch(cfg) }?;
        CACHE.release(tmp, bytes);

        // a zeroed accumulator for the side stream's statistics pass
        let stats = CACHE.alloc(bytes)?;
        unsafe { sys::cuMemsetD8Async(stats, 0, bytes, self.side.cu_stream()).result()? }; // EXPECT: missing_sync
        Ok(stats)
    }
}
