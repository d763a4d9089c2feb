//! case: near-miss of the staging-ring race: a double-buffered inference pipeline gives each slot its own stream and event, and waits on the slot's event before consuming its previous output and refilling its input buffer
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const SCALE_SRC: &str = r#"
extern "C" __global__ void standardize(const float* x, float* y, float mean, float inv_std, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = (x[i] - mean) * inv_std;
}
"#;

struct Slot {
    stream: Stream,
    done: Event,
    host_in: PinnedBuffer<f32>,
    host_out: PinnedBuffer<f32>,
    dev_in: DeviceBuffer<f32>,
    dev_out: DeviceBuffer<f32>,
    pending: Option<usize>,
}

pub struct Pipeline {
    slots: [Slot; 2],
    kernel: Kernel,
    batch: usize,
}

impl Pipeline {
    pub fn new(ctx: &Context, batch: usize) -> Result<Self> {
        let mk = || -> Result<Slot> {
            Ok(Slot {
                stream: ctx.new_stream()?,
                done: ctx.new_event()?,
                host_in: ctx.alloc_pinned(batch)?,
                host_out: ctx.alloc_pinned(batch)?,
                dev_in: ctx.alloc(batch)?,
                dev_out: ctx.alloc(batch)?,
                pending: None,
            })
        };
        Ok(Self { slots: [mk()?, mk()?], kernel: ctx.load_cuda(SCALE_SRC)?.function("standardize")?, batch })
    }

    /// Standardizes every batch of `input`; `sink(batch_index, values)` gets the results in order.
    pub fn run(&mut self, input: &[Vec<f32>], mean: f32, inv_std: f32, mut sink: impl FnMut(usize, &[f32])) -> Result<()> {
        let n = self.batch as u32;
        for (i, batch) in input.iter().enumerate() {
            let slot = &mut self.slots[i % 2];
            slot.done.synchronize()?;
            if let Some(prev) = slot.pending.take() {
                sink(prev, &slot.host_out);
            }
            slot.host_in[..batch.len()].copy_from_slice(batch);
            unsafe {
                slot.stream.copy_htod_async(&mut slot.dev_in, &slot.host_in)?;
                slot.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[&slot.dev_in, &slot.dev_out, &mean, &inv_std, &n])?;
                slot.stream.copy_dtoh_async(&mut slot.host_out, &slot.dev_out)?;
            }
            slot.stream.record_event(&slot.done)?;
            slot.pending = Some(i);
        }
        let mut tail: Vec<&mut Slot> = self.slots.iter_mut().filter(|s| s.pending.is_some()).collect();
        tail.sort_by_key(|s| s.pending);
        for slot in tail {
            slot.done.synchronize()?;
            if let Some(prev) = slot.pending.take() {
                sink(prev, &slot.host_out);
            }
        }
        Ok(())
    }
}
