//! case: storage deduplication on the runtime layer: chunks are uploaded from and fingerprints downloaded into pinned buffers that share one PinnedFlags value with write_combined set; after the stream is synchronized the host looks every fingerprint up in a HashSet, reading the write-combined download buffer
//! expect: write_combined_host_read=1

use std::collections::HashSet;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream};

const FP_SRC: &str = r#"
// FNV-1a over 4 KiB chunks, one warp per chunk with a final lane-0 fold.
extern "C" __global__ void chunk_fingerprints(const unsigned* words, unsigned chunks, unsigned long long* fps) {
    unsigned chunk = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    unsigned lane = threadIdx.x & 31;
    if (chunk >= chunks) return;
    unsigned long long h = 1469598103934665603ull ^ lane;
    const unsigned* w = words + (size_t)chunk * 1024;
    for (unsigned i = lane; i < 1024; i += 32) { h ^= w[i]; h *= 1099511628211ull; }
    for (int off = 16; off > 0; off >>= 1) h ^= __shfl_down_sync(0xffffffffu, h, off) * 31ull;
    if (lane == 0) fps[chunk] = h;
}
"#;

const STAGING: PinnedFlags = PinnedFlags { portable: false, device_mapped: false, write_combined: true };

pub struct Deduper {
    ctx: Context,
    stream: Stream,
    kernel: Kernel,
    upload: PinnedBuffer<u32>,
    download: PinnedBuffer<u64>,
    d_words: DeviceBuffer<u32>,
    d_fps: DeviceBuffer<u64>,
    seen: HashSet<u64>,
}

impl Deduper {
    pub fn new(chunks_per_batch: usize) -> Result<Self> {
        let ctx = Context::new(0)?;
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_cuda(FP_SRC)?.function("chunk_fingerprints")?;
        let upload = ctx.alloc_pinned_with_flags::<u32>(chunks_per_batch * 1024, STAGING)?;
        let download = ctx.alloc_pinned_with_flags::<u64>(chunks_per_batch, STAGING)?;
        let d_words = ctx.alloc::<u32>(chunks_per_batch * 1024)?;
        let d_fps = ctx.alloc::<u64>(chunks_per_batch)?;
        Ok(Self { ctx, stream, kernel, upload, download, d_words, d_fps, seen: HashSet::new() })
    }

    /// Returns the indices of chunks in `batch` (4 KiB each) not seen before.
    pub fn new_chunks(&mut self, batch: &[u8]) -> Result<Vec<usize>> {
        let chunks = batch.len() / 4096;
        for (dst, src) in self.upload.iter_mut().zip(batch.chunks_exact(4)) {
            *dst = u32::from_le_bytes([src[0], src[1], src[2], src[3]]);
        }
        unsafe { self.stream.copy_htod_async(&mut self.d_words, &self.upload)? };
        let n = chunks as u32;
        unsafe {
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n * 32), &[&self.d_words, &n, &self.d_fps])?;
            self.stream.copy_dtoh_async(&mut self.download, &self.d_fps)?;
        }
        self.stream.synchronize()?;
        let mut fresh = Vec::new();
        for (i, fp) in self.download[..chunks].iter().enumerate() {
            if self.seen.insert(*fp) { // EXPECT: write_combined_host_read
                fresh.push(i);
            }
        }
        Ok(fresh)
    }

    pub fn context(&self) -> &Context {
        &self.ctx
    }
}
