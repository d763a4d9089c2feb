//! case: a texture streamer uploads a large asset in chunks through a ring of pinned staging buffers (the runtime layer); from the third chunk on it refills a slot whose earlier async upload may still be reading it, with no wait in between
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub const CHUNK_BYTES: usize = 4 << 20;
pub const SLOTS: usize = 2;

pub struct TextureStreamer {
    stream: Stream,
    slots: Vec<PinnedBuffer<u8>>,
    uploaded_bytes: u64,
}

impl TextureStreamer {
    pub fn new(ctx: &Context) -> Result<Self> {
        let stream = ctx.new_stream()?;
        let slots = (0..SLOTS)
            .map(|_| ctx.alloc_pinned::<u8>(CHUNK_BYTES))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { stream, slots, uploaded_bytes: 0 })
    }

    /// Device buffers for `asset`, one per chunk, sized to match.
    pub fn allocate_for(ctx: &Context, asset_len: usize) -> Result<Vec<DeviceBuffer<u8>>> {
        (0..asset_len.div_ceil(CHUNK_BYTES))
            .map(|i| ctx.alloc::<u8>(CHUNK_BYTES.min(asset_len - i * CHUNK_BYTES)))
            .collect()
    }

    pub fn upload(&mut self, asset: &[u8], chunks_dev: &mut [DeviceBuffer<u8>]) -> Result<()> {
        for (i, (src, dev)) in asset.chunks(CHUNK_BYTES).zip(chunks_dev.iter_mut()).enumerate() {
            let slot = &mut self.slots[i % SLOTS];
            slot[..src.len()].copy_from_slice(src); // EXPECT: missing_sync
            unsafe { self.stream.copy_htod_async(dev, &slot[..src.len()])? };
            self.uploaded_bytes += src.len() as u64;
        }
        // Everything is on the device once the stream drains.
        self.stream.synchronize()
    }

    pub fn uploaded_mib(&self) -> f64 {
        self.uploaded_bytes as f64 / (1 << 20) as f64
    }
}
