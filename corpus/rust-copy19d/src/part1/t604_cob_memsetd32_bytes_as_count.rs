//! case: a histogram struct holding a cuMemAlloc'd bin array clears it with cuMemsetD32 given the byte size where the count of 32-bit words is due (4x too many).
//! expect: copy_out_of_bounds=1
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, DriverError};
use std::mem::size_of;
use std::sync::Arc;

const BINS: usize = 4096;
const BIN_BYTES: usize = BINS * size_of::<u32>();

pub struct DeviceHistogram {
    ctx: Arc<CudaContext>,
    d_bins: CUdeviceptr,
}

impl DeviceHistogram {
    pub fn new() -> Result<Self, DriverError> {
        let ctx = CudaContext::new(0)?;
        let mut d_bins: CUdeviceptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut d_bins, BIN_BYTES).result()? };
        Ok(Self { ctx, d_bins })
    }

    pub fn clear(&mut self) -> Result<(), DriverError> {
        unsafe { sys::cuMemsetD32_v2(self.d_bins, 0, BIN_BYTES).result() } // EXPECT: copy_out_of_bounds
    }

    pub fn read(&self) -> Result<Vec<u32>, DriverError> {
        let mut bins = vec![0u32; BINS];
        unsafe { sys::cuMemcpyDtoH_v2(bins.as_mut_ptr() as *mut _, self.d_bins, BIN_BYTES).result()? };
        Ok(bins)
    }
}

impl Drop for DeviceHistogram {
    fn drop(&mut self) {
        unsafe {
            sys::cuMemFree_v2(self.d_bins);
        }
    }
}

pub fn fresh_histogram() -> Result<Vec<u32>, DriverError> {
    let mut h = DeviceHistogram::new()?;
    h.clear()?;
    h.read()
}
