//! case: near-miss. Staging-buffer pool for an RPC gateway hands out pinned host buffers (`cuMemAllocHost_v2`) and device buffers (`cuMemAlloc_v2`) from one HashMap keyed by id; each entry carries its kind, and release dispatches on it to `cuMemFreeHost` or `cuMemFree_v2`, so every free matches its allocator
//! expect: none

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Mutex;

use cudarc::driver::sys;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    PinnedHost,
    Device,
}

#[derive(Debug, Clone, Copy)]
enum Ptr {
    Host(*mut c_void),
    Device(sys::CUdeviceptr),
}

struct Entry {
    ptr: Ptr,
    bytes: usize,
}

unsafe impl Send for Entry {}

#[derive(Default)]
pub struct StagingPool {
    next_id: Mutex<u64>,
    live: Mutex<HashMap<u64, Entry>>,
}

#[derive(Debug)]
pub struct PoolError(pub sys::CUresult);

impl StagingPool {
    pub fn acquire(&self, kind: Kind, bytes: usize) -> Result<u64, PoolError> {
        let ptr = match kind {
            Kind::PinnedHost => {
                let mut p: *mut c_void = std::ptr::null_mut();
                let r = unsafe { sys::cuMemAllocHost_v2(&mut p, bytes) };
                if r != sys::CUresult::CUDA_SUCCESS {
                    return Err(PoolError(r));
                }
                Ptr::Host(p)
            }
            Kind::Device => {
                let mut d: sys::CUdeviceptr = 0;
                let r = unsafe { sys::cuMemAlloc_v2(&mut d, bytes) };
                if r != sys::CUresult::CUDA_SUCCESS {
                    return Err(PoolError(r));
                }
                Ptr::Device(d)
            }
        };
        let mut id = self.next_id.lock().unwrap();
        *id += 1;
        self.live.lock().unwrap().insert(*id, Entry { ptr, bytes });
        Ok(*id)
    }

    pub fn host_ptr(&self, id: u64) -> Option<*mut c_void> {
        match self.live.lock().unwrap().get(&id)?.ptr {
            Ptr::Host(p) => Some(p),
            Ptr::Device(_) => None,
        }
    }

    pub fn device_ptr(&self, id: u64) -> Option<sys::CUdeviceptr> {
        match self.live.lock().unwrap().get(&id)?.ptr {
            Ptr::Device(d) => Some(d),
            Ptr::Host(_) => None,
        }
    }

    /// The caller guarantees no work in flight uses the buffer (it synchronizes its stream first).
    pub fn release(&self, id: u64) -> Result<usize, PoolError> {
        let Some(entry) = self.live.lock().unwrap().remove(&id) else { return Ok(0) };
        let r = match entry.ptr {
            Ptr::Host(p) => unsafe { sys::cuMemFreeHost(p) },
            Ptr::Device(d) => unsafe { sys::cuMemFree_v2(d) },
        };
        if r != sys::CUresult::CUDA_SUCCESS { Err(PoolError(r)) } else { Ok(entry.bytes) }
    }
}

impl Drop for StagingPool {
    fn drop(&mut self) {
        let ids: Vec<u64> = self.live.lock().unwrap().keys().copied().collect();
        for id in ids {
            let _ = self.release(id);
        }
    }
}
