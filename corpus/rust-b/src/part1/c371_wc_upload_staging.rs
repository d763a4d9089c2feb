//! case: a texture streamer fills cudarc `alloc_pinned` (write-combined) staging memory on the host and only ever uploads from it
//! expect: none
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, PinnedHostSlice};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

pub struct TextureStreamer {
    stream: Arc<CudaStream>,
    staging: PinnedHostSlice<u32>,
    atlas: CudaSlice<u32>,
}

impl TextureStreamer {
    pub fn new(texels: usize) -> Res<Self> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.new_stream()?;
        let staging = unsafe { ctx.alloc_pinned::<u32>(texels)? };
        let atlas = stream.alloc_zeros::<u32>(texels)?;
        Ok(Self { stream, staging, atlas })
    }

    /// Writes the tile into the staging memory (sequential host writes: what write-combining
    /// is for) and uploads it.
    pub fn stream_tile(&mut self, tile: &[u32], fill: u32) -> Res<()> {
        let dst = self.staging.as_mut_slice()?;
        let (head, tail) = dst.split_at_mut(tile.len().min(dst.len()));
        head.copy_from_slice(&tile[..head.len()]);
        tail.fill(fill);
        self.stream.memcpy_htod(&self.staging, &mut self.atlas)?;
        Ok(())
    }
}
