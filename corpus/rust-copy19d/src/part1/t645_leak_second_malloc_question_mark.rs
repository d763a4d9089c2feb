//! case: a KV-cache pool builder malloc_sync's the key cache, then returns through `?` if the value cache's malloc_sync fails, losing the key cache.
//! expect: device_memory_leak=1
use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::CudaContext;
use std::mem::size_of;
use std::sync::Arc;

const LAYERS: usize = 32;
const HEADS: usize = 32;
const HEAD_DIM: usize = 128;
const MAX_TOKENS: usize = 4096;
const CACHE_BYTES: usize = LAYERS * HEADS * HEAD_DIM * MAX_TOKENS * size_of::<u16>();

pub struct KvPool {
    ctx: Arc<CudaContext>,
    d_keys: CUdeviceptr,
    d_values: CUdeviceptr,
}

impl KvPool {
    pub fn new() -> Result<Self, DriverError> {
        let ctx = CudaContext::new(0)?;
        let d_keys = unsafe { result::malloc_sync(CACHE_BYTES) }?; // EXPECT: device_memory_leak
        let d_values = unsafe { result::malloc_sync(CACHE_BYTES) }?;
        let pool = Self { ctx, d_keys, d_values };
        unsafe {
            result::memset_d8_sync(pool.d_keys, 0, CACHE_BYTES)?;
            result::memset_d8_sync(pool.d_values, 0, CACHE_BYTES)?;
        }
        Ok(pool)
    }
}

impl Drop for KvPool {
    fn drop(&mut self) {
        unsafe {
            let _ = result::free_sync(self.d_keys);
            let _ = result::free_sync(self.d_values);
        }
    }
}
