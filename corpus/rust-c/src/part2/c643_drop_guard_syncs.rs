//! case: a detector enqueues its box decoding and the download into pinned memory inside a block holding a guard whose `Drop` synchronizes the stream; the host reads the boxes after the block, when the guard has been dropped
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const DECODE_SRC: &str = r#"
extern "C" __global__ void decode_boxes(const float* raw, float* boxes, unsigned n, float stride) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* r = raw + 5 * i;
    float cx = r[0] * stride, cy = r[1] * stride, w = __expf(r[2]) * stride, h = __expf(r[3]) * stride;
    float* b = boxes + 5 * i;
    b[0] = cx - 0.5f * w; b[1] = cy - 0.5f * h; b[2] = cx + 0.5f * w; b[3] = cy + 0.5f * h;
    b[4] = 1.0f / (1.0f + __expf(-r[4]));
}
"#;

/// Synchronizes its stream when dropped, also on early returns and panics.
struct SyncOnExit<'s> {
    stream: &'s Stream,
}

impl Drop for SyncOnExit<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.stream.synchronize() {
            eprintln!("stream synchronize failed: {e}");
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Detection {
    pub bbox: [f32; 4],
    pub score: f32,
}

pub struct Detector {
    stream: Stream,
    decode: Kernel,
    boxes: DeviceBuffer<f32>,
    boxes_host: PinnedBuffer<f32>,
}

impl Detector {
    pub fn new(ctx: &Context, max_anchors: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            decode: ctx.load_cuda(DECODE_SRC)?.function("decode_boxes")?,
            boxes: ctx.alloc(5 * max_anchors)?,
            boxes_host: ctx.alloc_pinned(5 * max_anchors)?,
        })
    }

    pub fn detect(&mut self, raw: &DeviceBuffer<f32>, stride: f32, threshold: f32) -> Result<Vec<Detection>> {
        let n = (raw.len() / 5) as u32;
        {
            let _sync = SyncOnExit { stream: &self.stream };
            unsafe {
                self.stream
                    .launch(&self.decode, LaunchConfig::for_num_elems(n), &[raw, &self.boxes, &n, &stride])?;
                self.stream.copy_dtoh_async(&mut self.boxes_host, &self.boxes)?;
            }
        }
        Ok(self.boxes_host[..5 * n as usize]
            .chunks_exact(5)
            .filter(|b| b[4] >= threshold)
            .map(|b| Detection { bbox: [b[0], b[1], b[2], b[3]], score: b[4] })
            .collect())
    }
}
