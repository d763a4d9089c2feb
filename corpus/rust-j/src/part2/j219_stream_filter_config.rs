//! case: stream-processing filter operator keeps its live-tunable thresholds in a runtime-layer `ManagedBuffer`; the control path rewrites the thresholds for the next batch while the filter kernel of the current batch (which reads only the event buffers) may still be running
//! expect: managed_concurrent_access=1

use std::sync::mpsc::Receiver;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const FILTER_SRC: &str = r#"
extern "C" __global__ void filter_events(const float* values, unsigned* keep, float lo, float hi, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) keep[i] = (values[i] >= lo && values[i] <= hi) ? 1u : 0u;
}
"#;

#[derive(Debug, Clone, Copy)]
pub struct Thresholds {
    pub lo: f32,
    pub hi: f32,
}

pub enum Control {
    Retune(Thresholds),
    Stop,
}

pub struct FilterOperator {
    stream: Stream,
    kernel: Kernel,
    /// [lo, hi, generation]; read by the host and by the next operator's kernels.
    thresholds: ManagedBuffer<f32>,
    values: DeviceBuffer<f32>,
    keep: DeviceBuffer<u32>,
}

impl FilterOperator {
    pub fn new(ctx: &Context, batch: usize, initial: Thresholds) -> Result<Self> {
        let module = ctx.load_cuda(FILTER_SRC)?;
        let mut thresholds = ctx.alloc_managed::<f32>(3)?;
        thresholds[0] = initial.lo;
        thresholds[1] = initial.hi;
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: module.function("filter_events")?,
            thresholds,
            values: ctx.alloc_zeroed::<f32>(batch)?,
            keep: ctx.alloc_zeroed::<u32>(batch)?,
        })
    }

    pub fn run_batch(&mut self, control: &Receiver<Control>) -> Result<bool> {
        let n = self.values.len() as u32;
        let (lo, hi) = (self.thresholds[0], self.thresholds[1]);
        unsafe { self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[&self.values, &self.keep, &lo, &hi, &n])? };
        let mut running = true;
        match control.try_recv() {
            Ok(Control::Retune(t)) => {
                self.thresholds[0] = t.lo; // EXPECT: managed_concurrent_access
                self.thresholds[1] = t.hi;
                self.thresholds[2] += 1.0;
            }
            Ok(Control::Stop) => running = false,
            Err(_) => {}
        }
        self.stream.synchronize()?;
        Ok(running)
    }
}
