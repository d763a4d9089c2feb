//! case: a double-buffered feature pipeline (runtime layer) copies on a copy stream and computes on a compute stream; per slot it keeps an `Option<Event>` for "copy finished" (the host waits on it before refilling the pinned slot, and the compute stream waits on it) and one for "kernel finished" (the copy stream waits on it before overwriting the device slot)
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const SCALE_SRC: &str = r#"
extern "C" __global__ void standardize_add(const float* x, unsigned int n, float mean, float inv_sd, float* acc) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += (x[i] - mean) * inv_sd;
}
"#;

struct Slot {
    staging: PinnedBuffer<f32>,
    dev: DeviceBuffer<f32>,
    copied: Option<Event>,
    consumed: Option<Event>,
}

pub struct FeaturePipeline {
    ctx: Context,
    copy: Stream,
    compute: Stream,
    kernel: Kernel,
    slots: Vec<Slot>,
    chunk: usize,
}

impl FeaturePipeline {
    pub fn new(ctx: &Context, chunk: usize) -> Result<Self> {
        let slots = (0..2)
            .map(|_| Ok(Slot { staging: ctx.alloc_pinned(chunk)?, dev: ctx.alloc(chunk)?, copied: None, consumed: None }))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            ctx: ctx.clone(),
            copy: ctx.new_stream()?,
            compute: ctx.new_stream()?,
            kernel: ctx.load_cuda(SCALE_SRC)?.function("standardize_add")?,
            slots,
            chunk,
        })
    }

    /// Adds the standardized rows of `rows` (each `chunk` long) into `acc`.
    pub fn accumulate(&mut self, rows: &[f32], mean: f32, sd: f32, acc: &mut DeviceBuffer<f32>) -> Result<()> {
        let inv_sd = 1.0 / sd;
        let n = self.chunk as u32;
        for (row, slot_idx) in rows.chunks_exact(self.chunk).zip((0..self.slots.len()).cycle()) {
            let slot = &mut self.slots[slot_idx];
            if let Some(copied) = slot.copied.take() {
                copied.synchronize()?; // the last copy out of this staging slot is done
            }
            slot.staging.copy_from_slice(row);
            if let Some(consumed) = slot.consumed.take() {
                self.copy.wait_event(&consumed)?; // the last kernel reading this device slot is done
            }
            unsafe { self.copy.copy_htod_async(&mut slot.dev, &slot.staging)? };
            let copied = self.ctx.new_event()?;
            self.copy.record_event(&copied)?;
            self.compute.wait_event(&copied)?;
            slot.copied = Some(copied);

            unsafe {
                self.compute.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[&slot.dev, &n, &mean, &inv_sd, &*acc])?;
            }
            let consumed = self.ctx.new_event()?;
            self.compute.record_event(&consumed)?;
            slot.consumed = Some(consumed);
        }
        self.compute.synchronize()?;
        self.copy.synchronize()
    }
}
