//! case: training data loader with a ring of portable write-combined upload slots (cuMemHostAlloc); after filling a slot the loader computes a CRC of it for the dedup log (host read of write-combined memory), and teardown calls cuMemHostUnregister on the slots, which were never registered, before cuMemFreeHost
//! expect: write_combined_host_read=1, mismatched_free=1
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::collections::HashSet;
use std::ffi::c_void;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (0u32.wrapping_sub(crc & 1)));
        }
    }
    !crc
}

pub struct UploadRing {
    slots: Vec<*mut u8>,
    slot_bytes: usize,
    next: usize,
    stream: sys::CUstream,
    seen: HashSet<u32>,
    device_batches: Vec<sys::CUdeviceptr>,
}

impl UploadRing {
    pub fn new(slots: usize, slot_bytes: usize) -> Res<Self> {
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
        let mut ring = Vec::with_capacity(slots);
        let mut device_batches = Vec::with_capacity(slots);
        for _ in 0..slots {
            let mut p: *mut c_void = std::ptr::null_mut();
            unsafe {
                sys::cuMemHostAlloc(&mut p, slot_bytes, sys::CU_MEMHOSTALLOC_PORTABLE | sys::CU_MEMHOSTALLOC_WRITECOMBINED).result()?;
            }
            ring.push(p.cast::<u8>());
            device_batches.push(unsafe { drv::malloc_sync(slot_bytes) }?);
        }
        Ok(UploadRing { slots: ring, slot_bytes, next: 0, stream, seen: HashSet::new(), device_batches })
    }

    /// Stages one serialized batch and starts its upload; `None` if the batch is a duplicate.
    pub fn push(&mut self, batch: &[u8]) -> Res<Option<sys::CUdeviceptr>> {
        let len = batch.len().min(self.slot_bytes);
        let i = self.next;
        if i == 0 {
            // A full turn of the ring: the slots we are about to overwrite must be uploaded.
            unsafe { drv::stream::synchronize(self.stream) }?;
        }
        let slot = unsafe { std::slice::from_raw_parts_mut(self.slots[i], len) };
        slot.copy_from_slice(&batch[..len]);
        let digest = crc32(slot); // EXPECT: write_combined_host_read
        if !self.seen.insert(digest) {
            return Ok(None);
        }
        let dst = self.device_batches[i];
        unsafe { sys::cuMemcpyHtoDAsync_v2(dst, self.slots[i].cast(), len, self.stream) }.result()?;
        self.next = (i + 1) % self.slots.len();
        Ok(Some(dst))
    }
}

impl Drop for UploadRing {
    fn drop(&mut self) {
        unsafe {
            let _ = drv::stream::synchronize(self.stream);
            for (&p, &d) in self.slots.iter().zip(&self.device_batches) {
                let _ = sys::cuMemHostUnregister(p.cast()); // EXPECT: mismatched_free
                let _ = sys::cuMemFreeHost(p.cast());
                let _ = drv::free_sync(d);
            }
            let _ = drv::stream::destroy(self.stream);
        }
    }
}
