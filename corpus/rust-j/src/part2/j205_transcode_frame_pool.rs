//! case: transcoding service keeps a pool of pinned frame buffers from cudarc's `result::malloc_host` (cuMemHostAlloc) for NV12 uploads; the pool's Drop hands them back with `result::free_sync`, i.e. cuMemFree on host memory
//! expect: mismatched_free=1

use std::collections::VecDeque;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use cudarc::driver::{result, sys, DriverError};

pub struct FrameGeometry {
    pub width: usize,
    pub height: usize,
}

impl FrameGeometry {
    pub fn nv12_bytes(&self) -> usize {
        self.width * self.height * 3 / 2
    }
}

pub struct PinnedFrame {
    ptr: *mut c_void,
    bytes: usize,
}

unsafe impl Send for PinnedFrame {}

impl PinnedFrame {
    pub fn as_mut_bytes(&mut self) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut u8, self.bytes) }
    }
}

pub struct FramePool {
    geometry: FrameGeometry,
    free: Mutex<VecDeque<PinnedFrame>>,
    all: Vec<*mut c_void>,
}

unsafe impl Send for FramePool {}
unsafe impl Sync for FramePool {}

impl FramePool {
    pub fn new(geometry: FrameGeometry, depth: usize) -> Result<Arc<Self>, DriverError> {
        let bytes = geometry.nv12_bytes();
        let mut free = VecDeque::with_capacity(depth);
        let mut all = Vec::with_capacity(depth);
        for _ in 0..depth {
            let ptr = unsafe { result::malloc_host(bytes, sys::CU_MEMHOSTALLOC_PORTABLE) }?;
            all.push(ptr);
            free.push_back(PinnedFrame { ptr, bytes });
        }
        Ok(Arc::new(Self { geometry, free: Mutex::new(free), all }))
    }

    pub fn checkout(&self) -> Option<PinnedFrame> {
        self.free.lock().unwrap().pop_front()
    }

    pub fn checkin(&self, frame: PinnedFrame) {
        self.free.lock().unwrap().push_back(frame);
    }

    /// Decodes one packet into a pinned frame and uploads it to `dst` on `stream`; the frame goes
    /// back to the pool only after the copy is complete.
    pub fn upload(&self, packet: &[u8], dst: sys::CUdeviceptr, stream: sys::CUstream) -> Result<bool, DriverError> {
        let Some(mut frame) = self.checkout() else { return Ok(false) };
        let out = frame.as_mut_bytes();
        let n = packet.len().min(out.len());
        out[..n].copy_from_slice(&packet[..n]);
        unsafe {
            result::memcpy_htod_async(dst, &frame.as_mut_bytes()[..n], stream)?;
            result::stream::synchronize(stream)?;
        }
        self.checkin(frame);
        Ok(true)
    }
}

impl Drop for FramePool {
    fn drop(&mut self) {
        self.free.lock().unwrap().clear();
        for ptr in self.all.drain(..) {
            let _ = unsafe { result::free_sync(ptr as sys::CUdeviceptr) }; // EXPECT: mismatched_free
        }
    }
}
