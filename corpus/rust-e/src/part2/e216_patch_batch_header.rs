//! case: a variable-length request batch is packed on the host, uploaded into a cudaMalloc buffer, and then its record count is patched in place by writing through the device pointer from the host
//! expect: host_deref_device_ptr=1

use std::ffi::c_void;

use cudarc::runtime::result::{self as rt, RuntimeError};

/// Layout: [u32 count][u32 offsets; count + 1][payload bytes]
pub struct PackedBatch {
    dev: *mut c_void,
    capacity: usize,
    count: u32,
}

impl PackedBatch {
    pub fn with_capacity(bytes: usize) -> Result<Self, RuntimeError> {
        let dev = unsafe { rt::malloc_sync(bytes)? };
        Ok(Self { dev, capacity: bytes, count: 0 })
    }

    pub fn device_ptr(&self) -> *const c_void {
        self.dev
    }

    /// Packs `requests` and uploads them; requests that do not fit are returned.
    pub fn fill<'a>(&mut self, requests: &'a [Vec<u8>]) -> Result<&'a [Vec<u8>], RuntimeError> {
        let header_words = |k: usize| 1 + k + 1;
        let mut taken = 0;
        let mut payload = 0usize;
        for r in requests {
            let need = 4 * header_words(taken + 1) + payload + r.len();
            if need > self.capacity {
                break;
            }
            payload += r.len();
            taken += 1;
        }

        let mut packed: Vec<u8> = Vec::with_capacity(4 * header_words(taken) + payload);
        packed.extend_from_slice(&0u32.to_le_bytes()); // count, patched below
        let mut off = 0u32;
        for r in &requests[..taken] {
            packed.extend_from_slice(&off.to_le_bytes());
            off += r.len() as u32;
        }
        packed.extend_from_slice(&off.to_le_bytes());
        requests[..taken].iter().for_each(|r| packed.extend_from_slice(r));

        unsafe { rt::memcpy_htod_sync(self.dev, &packed)? };
        self.count = taken as u32;
        unsafe { *(self.dev as *mut u32) = self.count }; // EXPECT: host_deref_device_ptr
        Ok(&requests[taken..])
    }
}

impl Drop for PackedBatch {
    fn drop(&mut self) {
        let _ = unsafe { rt::free_sync(self.dev) };
    }
}
