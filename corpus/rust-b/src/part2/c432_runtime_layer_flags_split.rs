//! case: runtime-layer staging split by direction: a write-combined upload buffer the host only fills, and a device-mapped (not write-combined) buffer the host reads
//! expect: none
use std::sync::OnceLock;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, PinnedFlags, Result, Stream};

const UPLOAD: PinnedFlags = PinnedFlags { portable: false, device_mapped: false, write_combined: true };
const READBACK: PinnedFlags = PinnedFlags { portable: false, device_mapped: true, write_combined: false };

static CHUNK: OnceLock<usize> = OnceLock::new();

fn chunk_len() -> usize {
    *CHUNK.get_or_init(|| std::env::var("CHUNK_LEN").ok().and_then(|v| v.parse().ok()).unwrap_or(1 << 18))
}

pub struct Transcoder {
    stream: Stream,
    upload: PinnedBuffer<i16>,
    readback: PinnedBuffer<i16>,
    dev: DeviceBuffer<i16>,
}

impl Transcoder {
    pub fn new(ctx: &Context) -> Result<Self> {
        let n = chunk_len();
        Ok(Self {
            stream: ctx.new_stream()?,
            upload: ctx.alloc_pinned_with_flags(n, UPLOAD)?,
            readback: ctx.alloc_pinned_with_flags(n, READBACK)?,
            dev: ctx.alloc_zeroed(n)?,
        })
    }

    /// Round-trips one chunk of PCM samples and returns its peak.
    pub fn round_trip(&mut self, pcm: &[i16]) -> Result<i16> {
        let n = pcm.len().min(self.upload.len());
        self.upload[..n].copy_from_slice(&pcm[..n]);
        unsafe { self.stream.copy_htod_async(&mut self.dev, &self.upload)? };
        unsafe { self.stream.copy_dtoh_async(&mut self.readback, &self.dev)? };
        self.stream.synchronize()?;
        Ok(self.readback[..n].iter().map(|s| s.saturating_abs()).max().unwrap_or(0))
    }
}

pub fn transcode(ctx: &Context, chunks: &[Vec<i16>]) -> Result<Vec<i16>> {
    let mut t = Transcoder::new(ctx)?;
    chunks.iter().map(|c| t.round_trip(c)).collect()
}
