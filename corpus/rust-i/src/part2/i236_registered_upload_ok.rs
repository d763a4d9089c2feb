//! case: training data loader (runtime crate) that page-locks each shard's Vec in place with register_host before copy_htod_async, synchronizes the stream before the guard unregisters it, and only then recycles the Vec for the next shard (near-miss: registered memory is pinned, and waited for)
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Result, Stream};
use std::io::Read;

pub struct ShardLoader<R: Read> {
    source: R,
    stream: Stream,
    shard_elems: usize,
    recycled: Vec<f32>,
    loaded: usize,
}

impl<R: Read> ShardLoader<R> {
    pub fn new(ctx: &Context, source: R, shard_elems: usize) -> Result<Self> {
        Ok(ShardLoader { source, stream: ctx.new_stream()?, shard_elems, recycled: vec![0.0; shard_elems], loaded: 0 })
    }

    fn read_shard(&mut self) -> std::io::Result<usize> {
        let mut bytes = vec![0u8; self.shard_elems * 4];
        let mut got = 0;
        while got < bytes.len() {
            let n = self.source.read(&mut bytes[got..])?;
            if n == 0 {
                break;
            }
            got += n;
        }
        for (dst, b) in self.recycled.iter_mut().zip(bytes[..got].chunks_exact(4)) {
            *dst = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        Ok(got / 4)
    }

    /// Loads the next shard into `dst`; returns the number of values, 0 at the end.
    pub fn next_into(&mut self, ctx: &Context, dst: &mut DeviceBuffer<f32>) -> Result<usize> {
        let n = self.read_shard().map_err(|e| cuda_lint_runtime::Error::InvalidArgument { call: "read", reason: e.to_string() })?;
        if n == 0 {
            return Ok(0);
        }
        self.recycled[n..].fill(0.0);
        {
            let locked = ctx.register_host(self.recycled.as_mut_slice())?;
            unsafe { self.stream.copy_htod_async(dst, &locked)? };
            self.stream.synchronize()?;
        } // unregistered here, after the copy completed
        self.loaded += n;
        Ok(n)
    }

    pub fn loaded(&self) -> usize {
        self.loaded
    }
}
