use super::block::{device_prop, rw_access, Block, BlockState};
use cudarc::driver::sys;

#[derive(Debug)]
pub struct PoolError(pub &'static str, pub sys::CUresult);

fn ck(what: &'static str, r: sys::CUresult) -> Result<(), PoolError> {
    if r == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(PoolError(what, r)) }
}

pub struct KvBlockPool {
    ordinal: i32,
    base: sys::CUdeviceptr,
    block_bytes: usize,
    blocks: Vec<Block>,
    stream: sys::CUstream,
}

impl KvBlockPool {
    pub fn new(ordinal: i32, n_blocks: usize, block_bytes: usize, stream: sys::CUstream) -> Result<Self, PoolError> {
        let total = n_blocks * block_bytes;
        let prop = device_prop(ordinal);
        let access = rw_access(ordinal);
        let mut base = 0;
        ck("reserve", unsafe { sys::cuMemAddressReserve(&mut base, total, 0, 0, 0) })?;
        let mut blocks = Vec::with_capacity(n_blocks);
        for i in 0..n_blocks {
            let addr = base + (i * block_bytes) as u64;
            let mut handle = 0;
            ck("create", unsafe { sys::cuMemCreate(&mut handle, block_bytes, &prop, 0) })?;
            ck("map", unsafe { sys::cuMemMap(addr, block_bytes, 0, handle, 0) })?;
            blocks.push(Block { addr, handle, state: BlockState::Free });
        }
        ck("access", unsafe { sys::cuMemSetAccess(base, total, &access, 1) })?;
        Ok(Self { ordinal, base, block_bytes, blocks, stream })
    }

    pub fn acquire(&mut self, seq_id: u64) -> Option<sys::CUdeviceptr> {
        let b = self.blocks.iter_mut().find(|b| b.state == BlockState::Free)?;
        b.state = BlockState::Owned { seq_id };
        Some(b.addr)
    }

    /// Returns block `idx` to the pool with fresh physical backing (a previous tenant's pages
    /// may have been handed to an IPC peer).
    pub fn recycle(&mut self, idx: usize) -> Result<(), PoolError> {
        let prop = device_prop(self.ordinal);
        let addr = self.blocks[idx].addr;
        ck("sync", unsafe { sys::cuStreamSynchronize(self.stream) })?;
        ck("unmap", unsafe { sys::cuMemUnmap(addr, self.block_bytes) })?;
        ck("release", unsafe { sys::cuMemRelease(self.blocks[idx].handle) })?;
        let mut handle = 0;
        ck("create", unsafe { sys::cuMemCreate(&mut handle, self.block_bytes, &prop, 0) })?;
        ck("map", unsafe { sys::cuMemMap(addr, self.block_bytes, 0, handle, 0) })?;
        ck("clear", unsafe { sys::cuMemsetD8Async(addr, 0, self.block_bytes, self.stream) })?; // EXPECT: vmm_lifecycle
        self.blocks[idx] = Block { addr, handle, state: BlockState::Free };
        Ok(())
    }

    pub fn sync(&self) -> Result<(), PoolError> {
        ck("sync", unsafe { sys::cuStreamSynchronize(self.stream) })
    }
}

impl Drop for KvBlockPool {
    fn drop(&mut self) {
        let total = self.blocks.len() * self.block_bytes;
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemAddressFree(self.base, total); // EXPECT: vmm_lifecycle
            for b in self.blocks.drain(..) {
                let _ = sys::cuMemUnmap(b.addr, self.block_bytes);
                let _ = sys::cuMemRelease(b.handle);
            }
        }
    }
}
