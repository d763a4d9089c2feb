//! case: columnar storage engine uploads decoded column chunks with the runtime layer's `copy_htod_async` straight from the decoder's `Vec<i64>` (pageable), and its min/max validation peeks at the uploaded chunk through a slice made from the `DeviceBuffer`'s raw device pointer
//! expect: pageable_async_copy=1, host_deref_device_ptr=1

pub mod column;
pub mod uploader;

pub use column::{ColumnChunk, Encoding};
pub use uploader::ChunkUploader;

use cuda_lint_runtime::{Context, Result};

pub fn load_row_group(ctx: &Context, chunks: Vec<ColumnChunk>) -> Result<usize> {
    let mut up = ChunkUploader::new(ctx)?;
    let mut rows = 0;
    for chunk in &chunks {
        rows = rows.max(up.upload(chunk)?);
    }
    up.finish()?;
    Ok(rows)
}
