//! case: block replication service (own extern "C" runtime API bindings): each block is cudaMalloc'd and filled with a blocking cudaMemcpy, then its CRC for the replication log is computed on the host over a slice built from the cudaMalloc pointer
//! expect: host_deref_device_ptr=1

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::ptr;

#[allow(non_snake_case)]
#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaMalloc(devPtr: *mut *mut c_void, size: usize) -> i32;
    fn cudaFree(devPtr: *mut c_void) -> i32;
    fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: i32) -> i32;
}

const H2D: i32 = 1;

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

pub struct ReplicaBlock {
    pub dev: *mut c_void,
    pub len: usize,
    pub crc: u32,
}

impl Drop for ReplicaBlock {
    fn drop(&mut self) {
        unsafe {
            cudaFree(self.dev);
        }
    }
}

#[derive(Default)]
pub struct ReplicaStore {
    blocks: BTreeMap<u64, ReplicaBlock>,
    log: Vec<(u64, u32)>,
}

impl ReplicaStore {
    pub fn put(&mut self, block_id: u64, data: &[u8]) -> Result<u32, i32> {
        let mut dev: *mut c_void = ptr::null_mut();
        unsafe {
            let rc = cudaMalloc(&mut dev, data.len());
            if rc != 0 {
                return Err(rc);
            }
            let rc = cudaMemcpy(dev, data.as_ptr() as *const c_void, data.len(), H2D);
            if rc != 0 {
                cudaFree(dev);
                return Err(rc);
            }
        }
        // Checksum what actually landed on the device, not the source buffer.
        let landed = unsafe { std::slice::from_raw_parts(dev as *const u8, data.len()) }; // EXPECT: host_deref_device_ptr
        let crc = crc32(landed);
        self.log.push((block_id, crc));
        self.blocks.insert(block_id, ReplicaBlock { dev, len: data.len(), crc });
        Ok(crc)
    }

    pub fn log(&self) -> &[(u64, u32)] {
        &self.log
    }

    pub fn evict(&mut self, block_id: u64) -> Option<u32> {
        self.blocks.remove(&block_id).map(|b| b.crc)
    }
}
