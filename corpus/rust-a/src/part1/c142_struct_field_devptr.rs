//! case: a GpuBytes struct keeps the CUdeviceptr it allocated in new(); its checksum() method builds a host slice over that field
//! expect: host_deref_device_ptr=1
use cudarc::driver::result;
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::DriverError;

pub struct GpuBytes {
    ptr: CUdeviceptr,
    len: usize,
}

impl GpuBytes {
    pub fn new(data: &[u8]) -> Result<Self, DriverError> {
        unsafe {
            let ptr = result::malloc_sync(data.len())?;
            result::memcpy_htod_sync(ptr, data)?;
            Ok(Self { ptr, len: data.len() })
        }
    }

    pub fn checksum(&self) -> u32 {
        let bytes = unsafe { std::slice::from_raw_parts(self.ptr as *const u8, self.len) }; // EXPECT: host_deref_device_ptr
        bytes.iter().fold(0u32, |h, &b| h.rotate_left(5) ^ b as u32)
    }
}

impl Drop for GpuBytes {
    fn drop(&mut self) {
        let _ = unsafe { result::free_sync(self.ptr) };
    }
}

pub fn verify(data: &[u8]) -> Result<bool, DriverError> {
    let gpu = GpuBytes::new(data)?;
    Ok(gpu.checksum() != 0)
}
