use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

use super::policy::{apply, SeqState};
use super::ARGMAX_SRC;

pub struct DecodeScheduler {
    stream: Stream,
    argmax: Kernel,
    logits: DeviceBuffer<f32>,
    next_dev: DeviceBuffer<i32>,
    next_host: PinnedBuffer<i32>,
    seqs: Vec<SeqState>,
    vocab: u32,
    draining: bool,
}

impl DecodeScheduler {
    pub fn new(ctx: &Context, logits: DeviceBuffer<f32>, vocab: usize, budgets: &[u32]) -> Result<Self> {
        let batch = budgets.len();
        Ok(DecodeScheduler {
            stream: ctx.new_stream()?,
            argmax: ctx.load_cuda(ARGMAX_SRC)?.function("argmax_rows")?,
            logits,
            next_dev: ctx.alloc(batch)?,
            next_host: ctx.alloc_pinned(batch)?,
            seqs: budgets.iter().map(|&budget| SeqState::Running { generated: Vec::new(), budget }).collect(),
            vocab: vocab as u32,
            draining: false,
        })
    }

    pub fn has_running(&self) -> bool {
        self.seqs.iter().any(SeqState::is_running)
    }

    pub fn request_drain(&mut self) {
        self.draining = true;
    }

    pub fn step(&mut self) -> Result<Vec<i32>> {
        let batch = self.seqs.len() as u32;
        unsafe {
            self.stream.launch(&self.argmax, LaunchConfig::for_num_elems(batch), &[&self.logits, &self.next_dev, &self.vocab, &batch])?;
            self.stream.copy_dtoh_async(&mut self.next_host, &self.next_dev)?;
        }

        if self.draining {
            // shutting down: hand the last tokens to the caller, skip the bookkeeping
            let last = self.next_host.to_vec(); // EXPECT: missing_sync
            self.seqs.iter_mut().for_each(|s| *s = SeqState::Finished { generated: s.tokens().to_vec() });
            return Ok(last);
        }

        self.stream.synchronize()?;
        let next = self.next_host.to_vec();
        apply(&mut self.seqs, &next);
        Ok(next)
    }

    pub fn outputs(&self) -> Vec<Vec<i32>> {
        self.seqs.iter().map(|s| s.tokens().to_vec()).collect()
    }
}

impl Drop for DecodeScheduler {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
    }
}
