//! case: texture uploads go through a `dyn Uploader` whose write-combined implementation (cudarc's `alloc_pinned`) is only ever written by the host and copied to the device: write-combined memory used for what it is for
//! expect: none

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, PinnedHostSlice};

pub trait Uploader {
    /// Copies `texels` to `dst` on the uploader's stream.
    fn upload(&mut self, texels: &[u32], dst: &mut CudaSlice<u32>) -> Result<(), DriverError>;
    fn name(&self) -> &'static str;
}

/// Write-combined staging: fast CPU writes and fast H2D DMA, never read back by the CPU.
pub struct WcStaging {
    stream: Arc<CudaStream>,
    buf: PinnedHostSlice<u32>,
}

impl WcStaging {
    pub fn new(ctx: &Arc<CudaContext>, stream: Arc<CudaStream>, max_texels: usize) -> Result<Self, DriverError> {
        let buf = unsafe { ctx.alloc_pinned::<u32>(max_texels)? };
        Ok(Self { stream, buf })
    }
}

impl Uploader for WcStaging {
    fn upload(&mut self, texels: &[u32], dst: &mut CudaSlice<u32>) -> Result<(), DriverError> {
        // as_mut_slice waits for the previous copy out of the buffer (multi-stream event tracking).
        let staging = self.buf.as_mut_slice()?;
        staging[..texels.len()].copy_from_slice(texels);
        let mut dst = dst.slice_mut(..texels.len());
        self.stream.memcpy_htod(&self.buf, &mut dst)
    }

    fn name(&self) -> &'static str {
        "write-combined staging"
    }
}

pub struct TextureCache {
    textures: Vec<CudaSlice<u32>>,
    uploader: Box<dyn Uploader + Send>,
}

impl TextureCache {
    pub fn new(uploader: Box<dyn Uploader + Send>) -> Self {
        Self { textures: Vec::new(), uploader }
    }

    pub fn insert(&mut self, stream: &Arc<CudaStream>, width: usize, height: usize, rgba: &[u32]) -> Result<usize, DriverError> {
        assert_eq!(rgba.len(), width * height);
        let mut tex = stream.alloc_zeros::<u32>(width * height)?;
        self.uploader.upload(rgba, &mut tex)?;
        self.textures.push(tex);
        Ok(self.textures.len() - 1)
    }
}

pub fn load_atlas(ctx: &Arc<CudaContext>, tiles: &[(usize, usize, Vec<u32>)]) -> Result<TextureCache, Box<dyn Error>> {
    let stream = ctx.new_stream()?;
    let max = tiles.iter().map(|(w, h, _)| w * h).max().unwrap_or(0);
    let uploader: Box<dyn Uploader + Send> = Box::new(WcStaging::new(ctx, stream.clone(), max)?);
    println!("uploading {} tiles through {}", tiles.len(), uploader.name());
    let mut cache = TextureCache::new(uploader);
    for (w, h, rgba) in tiles {
        cache.insert(&stream, *w, *h, rgba)?;
    }
    stream.synchronize()?;
    Ok(cache)
}
