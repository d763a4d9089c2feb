//! case: columnar scan uploads column chunks through a pool of pinned blocks (cuMemAllocHost) shared with worker threads through an Arc; workers synchronize before returning a block, but the pool's Drop hands the blocks to cuMemFree
//! expect: mismatched_free=1
pub mod pool;
pub mod worker;

pub type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;
