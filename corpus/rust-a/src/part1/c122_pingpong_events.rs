//! case: ping-pong staging with one event per pinned buffer: before refilling a buffer the feeder waits for the event recorded after that buffer's last upload
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const ACCUM_SRC: &str = r#"
extern "C" __global__ void accumulate(float* acc, const float* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += x[i];
}
"#;

pub struct PingPong {
    stream: Stream,
    staging: [PinnedBuffer<f32>; 2],
    uploaded: [Event; 2],
    input: DeviceBuffer<f32>,
    acc: DeviceBuffer<f32>,
    accumulate: Kernel,
}

impl PingPong {
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        let accumulate = ctx.load_cuda(ACCUM_SRC)?.function("accumulate")?;
        Ok(Self {
            stream: ctx.new_stream()?,
            staging: [ctx.alloc_pinned(n)?, ctx.alloc_pinned(n)?],
            uploaded: [ctx.new_event()?, ctx.new_event()?],
            input: ctx.alloc(n)?,
            acc: ctx.alloc_zeroed(n)?,
            accumulate,
        })
    }

    pub fn feed(&mut self, frames: &[Vec<f32>]) -> Result<()> {
        let n = self.acc.len() as u32;
        for (i, frame) in frames.iter().enumerate() {
            let k = i % 2;
            self.uploaded[k].synchronize()?; // the previous upload from staging[k] is done
            self.staging[k][..frame.len()].copy_from_slice(frame);
            // SAFETY: staging[k] is not written again before uploaded[k] completes.
            unsafe { self.stream.copy_htod_async(&mut self.input, &self.staging[k])? };
            self.stream.record_event(&self.uploaded[k])?;
            // SAFETY: accumulate(float*, const float*, unsigned) over n floats each.
            unsafe { self.stream.launch(&self.accumulate, LaunchConfig::for_num_elems(n), &[&self.acc, &self.input, &n])? };
        }
        self.stream.synchronize()
    }
}
