//! case: log shipper that streams compressed segments to the GPU for indexing (runtime crate): one pinned staging buffer is refilled for the next segment while the previous copy_htod_async from it may still be reading, because the stream is synchronized only after the loop
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const INDEX_SRC: &str = r#"
extern "C" __global__ void index_newlines(const unsigned char* seg, unsigned n, unsigned base, unsigned* line_count) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && seg[i] == '\n') atomicAdd(line_count, 1u);
}
"#;

pub struct SegmentIndexer {
    stream: Stream,
    kernel: Kernel,
    staging: PinnedBuffer<u8>,
    segments: Vec<DeviceBuffer<u8>>,
    d_lines: DeviceBuffer<u32>,
}

impl SegmentIndexer {
    pub fn new(ctx: &Context, segment_bytes: usize, max_segments: usize) -> Result<Self> {
        let segments = (0..max_segments).map(|_| ctx.alloc::<u8>(segment_bytes)).collect::<Result<Vec<_>>>()?;
        Ok(SegmentIndexer {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(INDEX_SRC)?.function("index_newlines")?,
            staging: ctx.alloc_pinned(segment_bytes)?,
            segments,
            d_lines: ctx.alloc_zeroed(1)?,
        })
    }

    /// Ships up to `max_segments` segments and returns how many lines they hold.
    pub fn ship(&mut self, segments: &[&[u8]]) -> Result<u32> {
        self.stream.memset_d32_async(&mut self.d_lines, 0)?;
        let seg_len = self.staging.len();
        for (k, seg) in segments.iter().take(self.segments.len()).enumerate() {
            let len = seg.len().min(seg_len);
            self.staging[..len].copy_from_slice(&seg[..len]); // EXPECT: missing_sync
            self.staging[len..].fill(0);
            unsafe { self.stream.copy_htod_async(&mut self.segments[k], &self.staging)? };
            let n = len as u32;
            let base = (k * seg_len) as u32;
            unsafe {
                self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[&self.segments[k], &n, &base, &self.d_lines])?;
            }
        }
        let mut lines = [0u32; 1];
        self.stream.copy_dtoh(&mut lines, &self.d_lines)?;
        Ok(lines[0])
    }
}
