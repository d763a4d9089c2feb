//! case: a thumbnail extractor downscales on a decode stream and reads back on a copy stream, both from `new_stream`, into pinned memory allocated without the write-combined flag; cudarc tracks events (multi-stream mode), so the copy waits for the kernel and `as_slice` waits for the copy
//! expect: none

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const DOWNSCALE_CU: &str = r#"
// 4x4 box filter: thumb[ty * tw + tx] = mean of the 16 source pixels it covers.
extern "C" __global__ void box_downscale(const unsigned char* src, int sw,
                                         unsigned char* thumb, int tw, int th) {
    int tx = blockIdx.x * blockDim.x + threadIdx.x;
    int ty = blockIdx.y;
    if (tx >= tw || ty >= th) return;
    unsigned int acc = 0;
    for (int dy = 0; dy < 4; ++dy)
        for (int dx = 0; dx < 4; ++dx)
            acc += src[(ty * 4 + dy) * sw + tx * 4 + dx];
    thumb[ty * tw + tx] = (unsigned char)(acc / 16);
}
"#;

struct InFlight {
    index: usize,
    host: PinnedHostSlice<u8>,
}

pub struct ThumbnailExtractor {
    decode: Arc<CudaStream>,
    copy: Arc<CudaStream>,
    downscale: CudaFunction,
    thumb_dev: CudaSlice<u8>,
    pending: Option<InFlight>,
    spare: Option<PinnedHostSlice<u8>>,
    src_width: usize,
    thumb_w: usize,
    thumb_h: usize,
}

impl ThumbnailExtractor {
    pub fn new(ctx: &Arc<CudaContext>, src_width: usize, src_height: usize) -> Result<Self, Box<dyn Error>> {
        // Two streams of our own: the context is in multi-stream mode and cudarc records
        // read/write events on every CudaSlice and PinnedHostSlice it copies or launches with.
        let decode = ctx.new_stream()?;
        let copy = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(DOWNSCALE_CU)?)?;
        let downscale = module.load_function("box_downscale")?;
        let (thumb_w, thumb_h) = (src_width / 4, src_height / 4);
        let thumb_dev = decode.alloc_zeros::<u8>(thumb_w * thumb_h)?;
        // Read on the host: cached pinned memory, not cudarc's write-combined default.
        let spare = Some(unsafe { ctx.alloc_pinned_with_flags::<u8>(thumb_w * thumb_h, 0)? });
        Ok(Self { decode, copy, downscale, thumb_dev, pending: None, spare, src_width, thumb_w, thumb_h })
    }

    /// Starts the thumbnail of frame `index`; returns the previous one once it is on the host.
    pub fn submit(&mut self, index: usize, frame: &CudaSlice<u8>) -> Result<Option<(usize, Vec<u8>)>, DriverError> {
        let finished = match self.pending.take() {
            Some(prev) => {
                let pixels = prev.host.as_slice()?.to_vec();
                self.spare = Some(prev.host);
                Some((prev.index, pixels))
            }
            None => None,
        };

        let (sw, tw, th) = (self.src_width as i32, self.thumb_w as i32, self.thumb_h as i32);
        let cfg = LaunchConfig {
            grid_dim: ((self.thumb_w as u32).div_ceil(128), self.thumb_h as u32, 1),
            block_dim: (128, 1, 1),
            shared_mem_bytes: 0,
        };
        unsafe {
            self.decode
                .launch_builder(&self.downscale)
                .arg(frame)
                .arg(&sw)
                .arg(&mut self.thumb_dev)
                .arg(&tw)
                .arg(&th)
                .launch(cfg)?;
        }
        let mut host = self.spare.take().expect("one spare buffer after take");
        self.copy.memcpy_dtoh(&self.thumb_dev, &mut host)?;
        self.pending = Some(InFlight { index, host });
        Ok(finished)
    }

    pub fn is_tracking(ctx: &CudaContext) -> bool {
        ctx.is_managing_stream_synchronization()
    }

    pub fn flush(&mut self) -> Result<Option<(usize, Vec<u8>)>, DriverError> {
        Ok(self.pending.take().map(|p| -> Result<_, DriverError> {
            let pixels = p.host.as_slice()?.to_vec();
            self.spare = Some(p.host);
            Ok((p.index, pixels))
        }).transpose()?)
    }
}

pub fn blocking_sync_flag() -> sys::CUevent_flags {
    sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC
}
