//! case: a packet ring in write-combined pinned memory (cuMemHostAlloc); before each upload the host re-reads the slot it just wrote to checksum it
//! expect: write_combined_host_read=1
use std::ffi::c_void;

use cudarc::driver::{sys, DriverError};

pub struct PacketRing {
    slots: Vec<*mut u8>,
    slot_bytes: usize,
    dev: sys::CUdeviceptr,
    stream: sys::CUstream,
    next: usize,
}

impl PacketRing {
    pub fn new(slots: usize, slot_bytes: usize) -> Result<Self, DriverError> {
        let mut ring = Self { slots: Vec::new(), slot_bytes, dev: 0, stream: std::ptr::null_mut(), next: 0 };
        unsafe {
            sys::cuStreamCreate(&mut ring.stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAlloc_v2(&mut ring.dev, slots * slot_bytes).result()?;
            for _ in 0..slots {
                let mut p: *mut c_void = std::ptr::null_mut();
                sys::cuMemHostAlloc(&mut p, slot_bytes, sys::CU_MEMHOSTALLOC_WRITECOMBINED | sys::CU_MEMHOSTALLOC_PORTABLE).result()?;
                ring.slots.push(p.cast());
            }
        }
        Ok(ring)
    }

    /// Writes `packet` into the next slot, checksums it and uploads it; returns the checksum.
    pub fn send(&mut self, packet: &[u8]) -> Result<u32, DriverError> {
        let idx = self.next;
        self.next = (idx + 1) % self.slots.len();
        unsafe { sys::cuStreamSynchronize(self.stream).result()? };
        let n = packet.len().min(self.slot_bytes);
        let slot = unsafe { std::slice::from_raw_parts_mut(self.slots[idx], self.slot_bytes) };
        slot[..n].copy_from_slice(&packet[..n]);
        let sum = slot[..n].iter().fold(0u32, |acc, &b| acc.rotate_left(5) ^ b as u32); // EXPECT: write_combined_host_read
        unsafe {
            let dst = self.dev + (idx * self.slot_bytes) as u64;
            sys::cuMemcpyHtoDAsync_v2(dst, self.slots[idx].cast(), n, self.stream).result()?;
        }
        Ok(sum)
    }
}

impl Drop for PacketRing {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            for p in self.slots.drain(..) {
                let _ = sys::cuMemFreeHost(p.cast());
            }
            let _ = sys::cuMemFree_v2(self.dev);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
