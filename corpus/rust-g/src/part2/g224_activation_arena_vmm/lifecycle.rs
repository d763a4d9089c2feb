//! Resetting the arena between requests, and tearing it down.

use cudarc::driver::result::DriverError;
use cudarc::driver::sys;

use super::arena::{access, prop, ActivationArena};

impl ActivationArena {
    /// Drops every allocation. Fresh physical memory is swapped in so that no activation of
    /// the previous request can leak into the next one.
    pub fn reset(&mut self) -> Result<(), DriverError> {
        let p = prop(self.device);
        let desc = access(self.device);
        let mut fresh = 0;
        unsafe {
            sys::cuStreamSynchronize(self.stream).result()?;
            sys::cuMemCreate(&mut fresh, self.capacity, &p, 0).result()?;
            sys::cuMemRelease(self.handle).result()?;
            sys::cuMemMap(self.base, self.capacity, 0, fresh, 0).result()?; // EXPECT: vmm_lifecycle
            sys::cuMemSetAccess(self.base, self.capacity, &desc, 1).result()?;
        }
        self.handle = fresh;
        self.top = 0;
        Ok(())
    }
}

impl Drop for ActivationArena {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, self.capacity); // EXPECT: vmm_lifecycle
        }
    }
}
