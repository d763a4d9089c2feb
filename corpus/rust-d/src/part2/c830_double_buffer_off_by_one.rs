//! case: a double-buffered upload pipeline (runtime layer) refills pinned staging slot `i % 2` only after waiting on that slot's event, but the wait is guarded by `i > 2` instead of `i >= 2`: at i == 2 the host overwrites slot 0 while the copy of chunk 0 may still be reading it
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const SUMSQ_SRC: &str = r#"
extern "C" __global__ void sum_squares(const float* x, unsigned int n, float* acc) {
    __shared__ float part[256];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = i < n ? x[i] * x[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(acc, part[0]);
}
"#;

pub struct Uploader {
    stream: Stream,
    kernel: Kernel,
    staging: [PinnedBuffer<f32>; 2],
    dev: [DeviceBuffer<f32>; 2],
    done: [Event; 2],
    chunk: usize,
}

impl Uploader {
    pub fn new(ctx: &Context, chunk: usize) -> Result<Uploader> {
        Ok(Uploader {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(SUMSQ_SRC)?.function("sum_squares")?,
            staging: [ctx.alloc_pinned(chunk)?, ctx.alloc_pinned(chunk)?],
            dev: [ctx.alloc(chunk)?, ctx.alloc(chunk)?],
            done: [ctx.new_event()?, ctx.new_event()?],
            chunk,
        })
    }

    /// Squared L2 norm of `data`, streamed through the GPU chunk by chunk.
    pub fn norm2(&mut self, ctx: &Context, data: &[f32]) -> Result<f32> {
        let mut acc = ctx.alloc_zeroed::<f32>(1)?;
        for (i, piece) in data.chunks(self.chunk).enumerate() {
            let slot = i % 2;
            if i > 2 {
                // the copy that last used this slot has to be done before we refill it
                self.done[slot].synchronize()?;
            }
            self.staging[slot][..piece.len()].copy_from_slice(piece); // EXPECT: missing_sync
            unsafe { self.stream.copy_htod_async(&mut self.dev[slot], &self.staging[slot])? };
            let n = piece.len() as u32;
            unsafe { self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[&self.dev[slot], &n, &acc])? };
            self.stream.record_event(&self.done[slot])?;
        }
        let mut out = [0.0f32; 1];
        self.stream.synchronize()?;
        self.stream.copy_dtoh(&mut out, &acc)?;
        Ok(out[0])
    }
}
