use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUstream};
use cudarc::driver::{CudaContext, DriverError};

use super::region::{device_prop, Region};

pub struct TextureCache {
    ctx: Arc<CudaContext>,
    region: Region,
    stream: CUstream,
}

impl TextureCache {
    pub fn new(ctx: &Arc<CudaContext>, bytes: usize) -> Result<Self, DriverError> {
        ctx.bind_to_thread()?;
        let region = Region::new(ctx.ordinal() as i32, bytes)?;
        let mut stream: CUstream = null_mut();
        unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()? };
        Ok(Self { ctx: ctx.clone(), region, stream })
    }

    pub fn clear(&mut self, texel: u32) -> Result<(), DriverError> {
        unsafe { sys::cuMemsetD32Async(self.region.va, texel, self.region.size / 4, self.stream).result() }
    }

    /// Moves the cache to compressible memory when the device offers it.
    pub fn recompress(&mut self) -> Result<(), DriverError> {
        unsafe { sys::cuStreamSynchronize(self.stream).result()? };
        let mut prop = device_prop(self.ctx.ordinal() as i32);
        prop.allocFlags.compressionType = sys::CUmemAllocationCompType::CU_MEM_ALLOCATION_COMP_GENERIC as u8;
        self.region.swap_backing(prop)
    }

    pub fn finish(&self) -> Result<(), DriverError> {
        unsafe { sys::cuStreamSynchronize(self.stream).result() }
    }
}

impl Drop for TextureCache {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
