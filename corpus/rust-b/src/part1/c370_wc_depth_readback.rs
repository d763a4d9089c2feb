//! case: a depth-map readback lands in cudarc's `alloc_pinned` memory (write-combined in 0.19) and the host computes a histogram from it
//! expect: write_combined_host_read=1
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, PinnedHostSlice};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

pub struct DepthReader {
    stream: Arc<CudaStream>,
    host: PinnedHostSlice<f32>,
}

impl DepthReader {
    pub fn new(ctx: &Arc<CudaContext>, pixels: usize) -> Res<Self> {
        let stream = ctx.default_stream();
        // Pinned for a fast readback; cudarc passes CU_MEMHOSTALLOC_WRITECOMBINED.
        let host = unsafe { ctx.alloc_pinned::<f32>(pixels)? };
        Ok(Self { stream, host })
    }

    pub fn histogram(&mut self, depth: &CudaSlice<f32>, far: f32) -> Res<[u32; 16]> {
        self.stream.memcpy_dtoh(depth, &mut self.host)?;
        self.stream.synchronize()?;
        let mut bins = [0u32; 16];
        for &d in self.host.as_slice()? { // EXPECT: write_combined_host_read
            let b = ((d / far).clamp(0.0, 0.999) * 16.0) as usize;
            bins[b] += 1;
        }
        Ok(bins)
    }
}
