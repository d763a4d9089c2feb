use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, DriverError};

use super::props::{device_prop, granularity, read_write_access};

struct Chunk {
    handle: sys::CUmemGenericAllocationHandle,
    offset: usize,
    size: usize,
}

/// A reserved virtual range that is backed chunk by chunk as it grows.
pub struct GrowableDeviceArray {
    ctx: Arc<CudaContext>,
    base: sys::CUdeviceptr,
    reserved: usize,
    mapped: usize,
    gran: usize,
    chunks: Vec<Chunk>,
}

impl GrowableDeviceArray {
    pub fn reserve(ctx: &Arc<CudaContext>, max_bytes: usize) -> Result<Self, DriverError> {
        ctx.bind_to_thread()?;
        let gran = granularity(&device_prop(ctx.ordinal() as i32))?;
        let reserved = max_bytes.div_ceil(gran) * gran;
        let mut base: sys::CUdeviceptr = 0;
        unsafe { sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0).result()? };
        Ok(Self { ctx: ctx.clone(), base, reserved, mapped: 0, gran, chunks: Vec::new() })
    }

    pub fn base(&self) -> sys::CUdeviceptr {
        self.base
    }

    /// Backs the range up to `bytes` with new physical chunks, zero-filled.
    pub fn ensure_capacity(&mut self, bytes: usize, stream: sys::CUstream) -> Result<(), DriverError> {
        if bytes <= self.mapped {
            return Ok(());
        }
        let size = (bytes - self.mapped).div_ceil(self.gran) * self.gran;
        assert!(self.mapped + size <= self.reserved, "particle field outgrew its reservation");
        let ordinal = self.ctx.ordinal() as i32;
        let prop = device_prop(ordinal);
        let mut handle: sys::CUmemGenericAllocationHandle = 0;
        let at = self.base + self.mapped as u64;
        unsafe {
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            if let Err(e) = sys::cuMemMap(at, size, 0, handle, 0).result() {
                let _ = sys::cuMemRelease(handle);
                return Err(e);
            }
        }
        // Recorded as soon as it is mapped, so Drop unmaps it whatever happens below.
        self.chunks.push(Chunk { handle, offset: self.mapped, size });
        self.mapped += size;
        unsafe {
            // New particles start at the origin.
            sys::cuMemsetD32Async(at, 0, size / 4, stream).result()?; // EXPECT: vmm_lifecycle
            let access = read_write_access(ordinal);
            sys::cuMemSetAccess(at, size, &access, 1).result()?;
        }
        Ok(())
    }

    /// First coordinate, for the progress log.
    pub fn peek_first(&self) -> f32 {
        unsafe { *(self.base as *const f32) } // EXPECT: host_deref_device_ptr
    }
}

impl Drop for GrowableDeviceArray {
    fn drop(&mut self) {
        let _ = self.ctx.synchronize();
        unsafe {
            for chunk in self.chunks.drain(..) {
                let _ = sys::cuMemUnmap(self.base + chunk.offset as u64, chunk.size);
                let _ = sys::cuMemRelease(chunk.handle);
            }
            let _ = sys::cuMemAddressFree(self.base, self.reserved);
        }
    }
}
