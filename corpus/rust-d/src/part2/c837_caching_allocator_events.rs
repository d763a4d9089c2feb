//! case: a stream-aware caching allocator (cudarc `driver::result`): `release` records an event on the stream that last used the block, and `alloc` on any stream makes that stream wait on the block's event before handing it out, so the side stream's memset of a reused block is ordered after the kernels that read it
//! expect: none

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void softplus_into(const float* x, float* tmp, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tmp[i] = log1pf(__expf(x[i]));
}
extern "C" __global__ void gate(const float* tmp, const float* x, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * tanhf(tmp[i]);
}
"#;

struct Cached {
    ptr: CUdeviceptr,
    ready: CUevent,
}

unsafe impl Send for Cached {}

#[derive(Default)]
pub struct StreamCache {
    free: Mutex<HashMap<usize, Vec<Cached>>>,
}

impl StreamCache {
    pub fn alloc(&self, bytes: usize, stream: CUstream) -> Result<CUdeviceptr, DriverError> {
        let hit = self.free.lock().unwrap().get_mut(&bytes).and_then(Vec::pop);
        match hit {
            Some(Cached { ptr, ready }) => unsafe {
                result::stream::wait_event(stream, ready, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT)?;
                result::event::destroy(ready)?;
                Ok(ptr)
            },
            None => unsafe { result::malloc_sync(bytes) },
        }
    }

    /// `last_use` is the stream of the last work that touches the block.
    pub fn release(&self, ptr: CUdeviceptr, bytes: usize, last_use: CUstream) -> Result<(), DriverError> {
        let ready = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)?;
        unsafe { result::event::record(ready, last_use)? };
        self.free.lock().unwrap().entry(bytes).or_default().push(Cached { ptr, ready });
        Ok(())
    }
}

fn cache() -> &'static StreamCache {
    static CACHE: OnceLock<StreamCache> = OnceLock::new();
    CACHE.get_or_init(StreamCache::default)
}

pub struct GatedLayer {
    main: Arc<CudaStream>,
    side: Arc<CudaStream>,
    softplus: CudaFunction,
    gate: CudaFunction,
}

impl GatedLayer {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let m = ctx.load_module(compile_ptx(SRC)?)?;
        Ok(Self { main: ctx.new_stream()?, side: ctx.new_stream()?, softplus: m.load_function("softplus_into")?, gate: m.load_function("gate")? })
    }

    pub fn forward(&self, x: CUdeviceptr, y: CUdeviceptr, n: u32) -> Result<CUdeviceptr, DriverError> {
        let bytes = n as usize * 4;
        let tmp = cache().alloc(bytes, self.main.cu_stream())?;
        let cfg = LaunchConfig::for_num_elems(n);
        let mut a = self.main.launch_builder(&self.softplus);
        a.arg(&x).arg(&tmp).arg(&n);
        unsafe { a.launch(cfg) }?;
        let mut b = self.main.launch_builder(&self.gate);
        b.arg(&tmp).arg(&x).arg(&y).arg(&n);
        unsafe { b.launch(cfg) }?;
        cache().release(tmp, bytes, self.main.cu_stream())?;

        let stats = cache().alloc(bytes, self.side.cu_stream())?;
        unsafe { result::memset_d8_async(stats, 0, bytes, self.side.cu_stream())? };
        Ok(stats)
    }
}
