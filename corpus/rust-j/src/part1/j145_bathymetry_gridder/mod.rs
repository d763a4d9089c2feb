//! case: multibeam bathymetry gridder (driver FFI) pulls the full depth grid into a pageable `Box<[f32]>` with cuMemcpyDtoHAsync, then queues the per-tile statistics copy into a cuMemAllocHost buffer and reads those statistics before cuStreamSynchronize (the pageable copy before it does not cover the later copy)
//! expect: pageable_async_copy=1, missing_sync=1

mod ffi;
mod grid;

pub use grid::{GridProduct, Gridder, TileStats};
