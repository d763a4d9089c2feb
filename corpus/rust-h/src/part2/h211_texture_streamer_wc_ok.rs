//! case: texture tile streamer of a game engine; tiles are written into write-combined staging from `alloc_pinned` (the host never reads it) and uploaded on a stream from `new_stream`, so cudarc records an event on the staging at each copy and `as_mut_slice` waits for the previous upload before the next tile overwrites it
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, PinnedHostSlice};

pub const TILE_BYTES: usize = 256 * 256 * 4;

#[derive(Clone, Copy, Debug)]
pub struct TileRequest {
    pub texture: usize,
    pub tile: usize,
}

pub struct TextureStreamer {
    stream: Arc<CudaStream>,
    staging: PinnedHostSlice<u8>,
    textures: Vec<CudaSlice<u8>>,
    uploaded: u64,
}

impl TextureStreamer {
    pub fn new(ctx: &Arc<CudaContext>, texture_tiles: &[usize]) -> Result<Self, DriverError> {
        let stream = ctx.new_stream()?;
        let staging = unsafe { ctx.alloc_pinned::<u8>(TILE_BYTES)? };
        let textures = texture_tiles
            .iter()
            .map(|&tiles| stream.alloc_zeros::<u8>(tiles * TILE_BYTES))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { stream, staging, textures, uploaded: 0 })
    }

    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// `decode` writes the tile's texels straight into the staging memory.
    pub fn upload<F>(&mut self, req: TileRequest, decode: F) -> Result<(), DriverError>
    where
        F: FnOnce(&mut [u8]),
    {
        decode(self.staging.as_mut_slice()?);
        let off = req.tile * TILE_BYTES;
        let mut dst = self.textures[req.texture].slice_mut(off..off + TILE_BYTES);
        self.stream.memcpy_htod(&self.staging, &mut dst)?;
        self.uploaded += 1;
        Ok(())
    }

    pub fn upload_all<I, F>(&mut self, reqs: I, mut decode: F) -> Result<u64, DriverError>
    where
        I: IntoIterator<Item = TileRequest>,
        F: FnMut(TileRequest, &mut [u8]),
    {
        for req in reqs {
            self.upload(req, |texels| decode(req, texels))?;
        }
        Ok(self.uploaded)
    }
}
