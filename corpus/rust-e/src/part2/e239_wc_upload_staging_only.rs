//! case: near-miss of the write-combined read: a texture uploader fills cudarc's write-combined `alloc_pinned` staging buffer from the decoded image (host writes only), uploads it and synchronizes before the staging buffer is reused
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, PinnedHostSlice};

pub struct TextureUploader {
    stream: Arc<CudaStream>,
    staging: PinnedHostSlice<u32>,
    width: usize,
    height: usize,
}

impl TextureUploader {
    /// One uploader per texture size (the atlas pages all have the same size).
    pub fn new(ctx: &Arc<CudaContext>, width: usize, height: usize) -> Result<Self, DriverError> {
        let stream = ctx.default_stream();
        // write-combined: the CPU only ever writes it, and it crosses PCIe faster
        let staging = unsafe { ctx.alloc_pinned::<u32>(width * height)? };
        Ok(Self { stream, staging, width, height })
    }

    /// Packs RGB8 into RGBA8 texels straight into the staging buffer and uploads them.
    pub fn upload_rgb8(&mut self, rgb: &[u8]) -> Result<CudaSlice<u32>, DriverError> {
        let texels = self.width * self.height;
        assert_eq!(rgb.len(), 3 * texels, "RGB8 page of the wrong size");
        self.staging
            .as_mut_slice()?
            .iter_mut()
            .zip(rgb.chunks_exact(3))
            .for_each(|(t, px)| *t = 0xFF00_0000 | (px[2] as u32) << 16 | (px[1] as u32) << 8 | px[0] as u32);
        let mut tex = self.stream.alloc_zeros::<u32>(texels)?;
        self.stream.memcpy_htod(&self.staging, &mut tex)?;
        self.stream.synchronize()?;
        Ok(tex)
    }
}
