//! case: RF spectrum waterfall keeps its pinned readback buffer in an enum state machine moved through Option::take; the per-burst path waits on the readback's event before reading, but the shutdown `flush` takes the in-flight buffer and reads the last line without waiting
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const PSD_SRC: &str = r#"
extern "C" __global__ void psd_line(const float2* iq, int n, int bins, float* psd_db) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= bins) return;
    float re = 0.0f, im = 0.0f;
    for (int t = 0; t < n; ++t) {
        float ph = -6.2831853f * k * t / bins, c = __cosf(ph), s = __sinf(ph);
        re += iq[t].x * c - iq[t].y * s;
        im += iq[t].x * s + iq[t].y * c;
    }
    psd_db[k] = 10.0f * log10f((re * re + im * im) / n + 1e-20f);
}
"#;

enum Readback {
    Idle(PinnedBuffer<f32>),
    InFlight { buf: PinnedBuffer<f32>, done: Event },
}

pub struct Waterfall {
    ctx: Context,
    stream: Stream,
    kernel: Kernel,
    psd: DeviceBuffer<f32>,
    state: Option<Readback>,
    bins: usize,
}

impl Waterfall {
    pub fn new(ctx: Context, bins: usize) -> Result<Self> {
        Ok(Waterfall {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(PSD_SRC)?.function("psd_line")?,
            psd: ctx.alloc(bins)?,
            state: Some(Readback::Idle(ctx.alloc_pinned(bins)?)),
            ctx,
            bins,
        })
    }

    fn launch(&mut self, iq: &DeviceBuffer<f32>) -> Result<()> {
        let Some(Readback::Idle(mut buf)) = self.state.take() else {
            panic!("launch while a readback is outstanding");
        };
        let (n, bins) = ((iq.len() / 2) as i32, self.bins as i32);
        unsafe {
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(self.bins as u32), &[iq, &n, &bins, &self.psd])?;
            self.stream.copy_dtoh_async(&mut buf, &self.psd)?;
        }
        let done = self.ctx.new_event()?;
        self.stream.record_event(&done)?;
        self.state = Some(Readback::InFlight { buf, done });
        Ok(())
    }

    fn take_ready(&mut self) -> Result<Option<Vec<f32>>> {
        match self.state.take() {
            Some(Readback::InFlight { buf, done }) => {
                done.synchronize()?;
                let line = buf.to_vec();
                self.state = Some(Readback::Idle(buf));
                Ok(Some(line))
            }
            other => {
                self.state = other;
                Ok(None)
            }
        }
    }

    fn flush(&mut self) -> Result<Option<Vec<f32>>> {
        match self.state.take() {
            Some(Readback::InFlight { buf, done: _ }) => {
                // shutting down: keep the last line of the waterfall too
                let line = buf.to_vec(); // EXPECT: missing_sync
                self.state = Some(Readback::Idle(buf));
                Ok(Some(line))
            }
            other => {
                self.state = other;
                Ok(None)
            }
        }
    }

    pub fn capture(&mut self, bursts: &[DeviceBuffer<f32>]) -> Result<Vec<Vec<f32>>> {
        let mut lines = Vec::with_capacity(bursts.len());
        for iq in bursts {
            lines.extend(self.take_ready()?);
            self.launch(iq)?;
        }
        lines.extend(self.flush()?);
        self.stream.synchronize()?;
        Ok(lines)
    }
}
