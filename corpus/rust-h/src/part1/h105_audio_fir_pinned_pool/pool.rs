use cudarc::driver::{result, sys, DriverError};

/// One page-locked block of audio samples.
pub struct PinnedBlock {
    ptr: *mut f32,
    len: usize,
}

unsafe impl Send for PinnedBlock {}

impl PinnedBlock {
    pub fn new(len: usize) -> Result<Self, DriverError> {
        let bytes = len * std::mem::size_of::<f32>();
        let ptr = unsafe { result::malloc_host(bytes, 0)? } as *mut f32;
        unsafe { std::ptr::write_bytes(ptr, 0, len) };
        Ok(Self { ptr, len })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn as_slice(&self) -> &[f32] {
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [f32] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for PinnedBlock {
    fn drop(&mut self) {
        // Every block is idle here: the filter synchronizes before handing a block back.
        unsafe {
            let _ = result::free_sync(self.ptr as sys::CUdeviceptr); // EXPECT: mismatched_free
        }
    }
}

/// A small free list so the hot loop never allocates page-locked memory.
pub struct BlockPool {
    free: Vec<PinnedBlock>,
    block_len: usize,
}

impl BlockPool {
    pub fn with_capacity(n: usize, block_len: usize) -> Result<Self, DriverError> {
        let free = (0..n).map(|_| PinnedBlock::new(block_len)).collect::<Result<Vec<_>, _>>()?;
        Ok(Self { free, block_len })
    }

    pub fn acquire(&mut self) -> Result<PinnedBlock, DriverError> {
        match self.free.pop() {
            Some(block) => Ok(block),
            None => PinnedBlock::new(self.block_len),
        }
    }

    pub fn release(&mut self, block: PinnedBlock) {
        if self.free.len() < 16 {
            self.free.push(block);
        }
    }
}
