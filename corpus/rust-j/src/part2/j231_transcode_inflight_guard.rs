//! case: near-miss. Transcoder's scaler stage wraps each submitted frame in an `InFlight` guard whose Drop synchronizes the stream; the luma histogram is read from pinned memory (runtime layer, default flags) only after the guard has gone out of scope, so the read follows the synchronize
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const SCALE_SRC: &str = r#"
extern "C" __global__ void downscale_luma(const unsigned char* src, unsigned char* dst, unsigned* hist,
                                          unsigned sw, unsigned sh, unsigned dw, unsigned dh) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y;
    if (x >= dw || y >= dh) return;
    unsigned char v = src[(y * sh / dh) * sw + (x * sw / dw)];
    dst[y * dw + x] = v;
    atomicAdd(&hist[v >> 4], 1u);
}
"#;

/// Synchronizes its stream when dropped: whatever was enqueued while it lived is complete after.
pub struct InFlight<'s> {
    stream: &'s Stream,
    frame_no: u64,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.stream.synchronize() {
            eprintln!("frame {}: stream error {e}", self.frame_no);
        }
    }
}

pub struct Scaler {
    stream: Stream,
    kernel: Kernel,
    out: DeviceBuffer<u8>,
    hist_dev: DeviceBuffer<u32>,
    hist_host: PinnedBuffer<u32>,
    dims: (u32, u32, u32, u32),
    frames: u64,
}

impl Scaler {
    pub fn new(ctx: &Context, src: (u32, u32), dst: (u32, u32)) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(SCALE_SRC)?.function("downscale_luma")?,
            out: ctx.alloc::<u8>((dst.0 * dst.1) as usize)?,
            hist_dev: ctx.alloc_zeroed::<u32>(16)?,
            hist_host: ctx.alloc_pinned::<u32>(16)?,
            dims: (src.0, src.1, dst.0, dst.1),
            frames: 0,
        })
    }

    fn submit(&mut self, frame: &DeviceBuffer<u8>) -> Result<InFlight<'_>> {
        let (sw, sh, dw, dh) = self.dims;
        self.frames += 1;
        self.stream.memset_d32_async(&mut self.hist_dev, 0)?;
        let cfg = LaunchConfig { grid: (dw.div_ceil(128), dh, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.stream.launch(&self.kernel, cfg, &[frame, &self.out, &self.hist_dev, &sw, &sh, &dw, &dh])? };
        unsafe { self.stream.copy_dtoh_async(&mut self.hist_host, &self.hist_dev)? };
        Ok(InFlight { stream: &self.stream, frame_no: self.frames })
    }

    /// Returns the index of the darkest histogram bucket holding at least 1% of the pixels.
    pub fn scale(&mut self, frame: &DeviceBuffer<u8>) -> Result<Option<usize>> {
        {
            let _guard = self.submit(frame)?;
            // other host work for this frame could go here; the guard syncs on scope exit
        }
        let total: u32 = self.hist_host.iter().sum();
        Ok(self.hist_host.iter().position(|&c| c as u64 * 100 >= total as u64))
    }
}
