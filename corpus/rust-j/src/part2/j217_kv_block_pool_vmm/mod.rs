//! case: LLM-serving KV-cache block pool over one VMM reservation (sys layer): recycling a block unmaps it and maps a fresh physical handle at the same address, then clears it without granting access again; teardown frees the reservation before unmapping the blocks
//! expect: vmm_lifecycle=2

pub mod block;
pub mod pool;

pub use pool::{KvBlockPool, PoolError};

/// Serves one batch: takes a block per sequence, recycles the ones whose sequences finished.
pub fn step(pool: &mut KvBlockPool, finished: &[usize]) -> Result<(), PoolError> {
    for &b in finished {
        pool.recycle(b)?;
    }
    pool.sync()
}
