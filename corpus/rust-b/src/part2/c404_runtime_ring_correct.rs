//! case: a runtime-API upload ring (cudaMallocHost slots, one cudaMalloc device buffer) released with cudaFreeHost and cudaFree
//! expect: none
use std::ffi::c_void;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys as rt;

struct Slot {
    host: *mut f32,
    filled: usize,
}

pub struct UploadRing {
    slots: Vec<Slot>,
    slot_len: usize,
    next: usize,
    device: *mut c_void,
    stream: rt::cudaStream_t,
}

impl UploadRing {
    pub fn new(slots: usize, slot_len: usize) -> Result<Self, RuntimeError> {
        let mut ring = Self { slots: Vec::new(), slot_len, next: 0, device: std::ptr::null_mut(), stream: std::ptr::null_mut() };
        unsafe {
            rt::cudaStreamCreateWithFlags(&mut ring.stream, rt::cudaStreamNonBlocking).result()?;
            rt::cudaMalloc(&mut ring.device, slots * slot_len * 4).result()?;
        }
        for _ in 0..slots {
            let mut p: *mut c_void = std::ptr::null_mut();
            unsafe { rt::cudaMallocHost(&mut p, slot_len * 4).result()? };
            ring.slots.push(Slot { host: p.cast(), filled: 0 });
        }
        Ok(ring)
    }

    /// Copies `values` into the next slot and sends it to its part of the device buffer.
    pub fn push(&mut self, values: &[f32]) -> Result<(), RuntimeError> {
        let idx = self.next;
        self.next = (self.next + 1) % self.slots.len();
        // Wait for the slot's previous copy before overwriting it.
        unsafe { rt::cudaStreamSynchronize(self.stream).result()? };
        let slot = &mut self.slots[idx];
        let n = values.len().min(self.slot_len);
        let host = unsafe { std::slice::from_raw_parts_mut(slot.host, self.slot_len) };
        host[..n].copy_from_slice(&values[..n]);
        slot.filled = n;
        let dst = unsafe { self.device.cast::<f32>().add(idx * self.slot_len) };
        unsafe {
            rt::cudaMemcpyAsync(dst.cast(), slot.host.cast(), n * 4, rt::cudaMemcpyKind::cudaMemcpyHostToDevice, self.stream)
                .result()
        }
    }
}

impl Drop for UploadRing {
    fn drop(&mut self) {
        unsafe {
            let _ = rt::cudaStreamSynchronize(self.stream);
            for slot in self.slots.drain(..) {
                let _ = rt::cudaFreeHost(slot.host.cast());
            }
            let _ = rt::cudaFree(self.device);
            let _ = rt::cudaStreamDestroy(self.stream);
        }
    }
}

pub fn stream_batches(batches: &[Vec<f32>]) -> Result<(), RuntimeError> {
    let mut ring = UploadRing::new(3, 1 << 16)?;
    batches.iter().try_for_each(|b| ring.push(b))?;
    Ok(())
}
