use std::collections::HashMap;

use cuda_lint_runtime::{Context, DeviceBuffer, Error, Result, Stream};

use super::column::ColumnChunk;

pub struct ChunkUploader {
    ctx: Context,
    stream: Stream,
    resident: HashMap<String, DeviceBuffer<i64>>,
    pub validate: bool,
}

impl ChunkUploader {
    pub fn new(ctx: &Context) -> Result<Self> {
        Ok(Self { ctx: ctx.clone(), stream: ctx.new_stream()?, resident: HashMap::new(), validate: true })
    }

    /// Uploads one chunk; returns its row count.
    pub fn upload(&mut self, chunk: &ColumnChunk) -> Result<usize> {
        let n = chunk.values.len();
        let mut dev = self.ctx.alloc::<i64>(n)?;
        // SAFETY: `chunk` outlives the copy; the stream is synchronized below before returning.
        unsafe { self.stream.copy_htod_async(&mut dev, &chunk.values)? }; // EXPECT: pageable_async_copy
        self.stream.synchronize()?;
        if self.validate && n > 0 {
            let (lo, hi) = (chunk.min, chunk.max);
            let bad = unsafe { std::slice::from_raw_parts(dev.device_ptr().as_raw() as *const i64, n) }.iter().any(|v| *v < lo || *v > hi); // EXPECT: host_deref_device_ptr
            if bad {
                return Err(Error::InvalidArgument { call: "upload", reason: format!("column {} out of range", chunk.name) });
            }
        }
        self.resident.insert(chunk.name.clone(), dev);
        Ok(n)
    }

    pub fn finish(self) -> Result<()> {
        self.stream.synchronize()
    }
}
