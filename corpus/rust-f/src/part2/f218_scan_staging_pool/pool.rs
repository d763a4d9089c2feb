use super::Res;
use cudarc::driver::sys;
use std::ffi::c_void;
use std::sync::{Condvar, Mutex};

pub struct HostBlock {
    pub ptr: *mut c_void,
    pub bytes: usize,
}

// The blocks are plain page-locked host memory; ownership moves with the value.
unsafe impl Send for HostBlock {}

pub struct StagingPool {
    free: Mutex<Vec<HostBlock>>,
    available: Condvar,
    pub block_bytes: usize,
}

impl StagingPool {
    pub fn new(blocks: usize, block_bytes: usize) -> Res<Self> {
        let mut free = Vec::with_capacity(blocks);
        for _ in 0..blocks {
            let mut ptr = std::ptr::null_mut();
            unsafe { sys::cuMemAllocHost_v2(&mut ptr, block_bytes) }.result()?;
            free.push(HostBlock { ptr, bytes: block_bytes });
        }
        Ok(StagingPool { free: Mutex::new(free), available: Condvar::new(), block_bytes })
    }

    pub fn take(&self) -> HostBlock {
        let mut free = self.free.lock().unwrap();
        loop {
            if let Some(b) = free.pop() {
                return b;
            }
            free = self.available.wait(free).unwrap();
        }
    }

    pub fn give_back(&self, block: HostBlock) {
        self.free.lock().unwrap().push(block);
        self.available.notify_one();
    }
}

impl Drop for StagingPool {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
        }
        let blocks = std::mem::take(self.free.get_mut().unwrap());
        for block in blocks {
            let _ = unsafe { sys::cuMemFree_v2(block.ptr as sys::CUdeviceptr) }; // EXPECT: mismatched_free
        }
    }
}
