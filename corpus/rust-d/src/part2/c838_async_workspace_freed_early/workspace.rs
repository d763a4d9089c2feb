//! Stream-ordered scratch allocations for the layers.

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::DriverError;

/// Stream-ordered scratch memory for one layer call.
pub struct Workspace {
    pub ptr: CUdeviceptr,
}

impl Workspace {
    pub fn new(bytes: usize, stream: CUstream) -> Result<Workspace, DriverError> {
        let mut ptr = 0;
        unsafe { sys::cuMemAllocAsync(&mut ptr, bytes, stream).result()? };
        Ok(Workspace { ptr })
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        unsafe { sys::cuMemFree_v2(self.ptr) }; // EXPECT: missing_sync
    }
}
