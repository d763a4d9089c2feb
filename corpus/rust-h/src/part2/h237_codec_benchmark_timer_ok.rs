//! case: benchmark harness of a compression codec on the runtime layer; upload, kernel and readback are bracketed by an `EventTimer`, whose `elapsed_ms` synchronizes the stop event recorded after the readback, so the pinned output is complete when the harness verifies it
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, EventTimer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const DELTA_SRC: &str = r#"
extern "C" __global__ void delta_encode(const int* in, int* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i == 0 ? in[0] : in[i] - in[i - 1];
}
"#;

pub struct BenchReport {
    pub elems: usize,
    pub gpu_ms: f32,
    pub gbps: f64,
    pub verified: bool,
}

pub struct CodecBench {
    stream: Stream,
    encode: Kernel,
    input: PinnedBuffer<i32>,
    output: PinnedBuffer<i32>,
    d_in: DeviceBuffer<i32>,
    d_out: DeviceBuffer<i32>,
    timer: EventTimer,
}

impl CodecBench {
    pub fn new(ctx: &Context, elems: usize) -> Result<Self> {
        let mut input = ctx.alloc_pinned::<i32>(elems)?;
        input.iter_mut().enumerate().for_each(|(i, v)| *v = (i as i32).wrapping_mul(7) / 3);
        Ok(Self {
            stream: ctx.new_stream()?,
            encode: ctx.load_cuda(DELTA_SRC)?.function("delta_encode")?,
            input,
            output: ctx.alloc_pinned::<i32>(elems)?,
            d_in: ctx.alloc::<i32>(elems)?,
            d_out: ctx.alloc::<i32>(elems)?,
            timer: EventTimer::new(ctx)?,
        })
    }

    pub fn run(&mut self) -> Result<BenchReport> {
        let n = self.input.len() as u32;
        self.timer.start(&self.stream)?;
        unsafe { self.stream.copy_htod_async(&mut self.d_in, &self.input)? };
        unsafe { self.stream.launch(&self.encode, LaunchConfig::for_num_elems(n), &[&self.d_in, &self.d_out, &n])? };
        unsafe { self.stream.copy_dtoh_async(&mut self.output, &self.d_out)? };
        self.timer.stop(&self.stream)?;
        let gpu_ms = self.timer.elapsed_ms()?;

        let verified = self
            .input
            .windows(2)
            .zip(self.output.iter().skip(1))
            .all(|(w, &d)| w[1].wrapping_sub(w[0]) == d);
        let bytes = 3.0 * self.input.len() as f64 * 4.0;
        Ok(BenchReport { elems: self.input.len(), gpu_ms, gbps: bytes / (gpu_ms as f64 * 1e-3) / 1e9, verified })
    }
}
