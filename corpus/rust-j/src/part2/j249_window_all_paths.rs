//! case: near-miss. Session-window operator supports three completion strategies (blocking, polling, event); after `copy_dtoh_async` into pinned memory (runtime layer) every arm of the match waits for the copy before the per-session counts are read, and the error paths return before any read
//! expect: none

use std::collections::HashMap;

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const SESSION_SRC: &str = r#"
extern "C" __global__ void session_counts(const unsigned* session_of, unsigned n, unsigned* counts, unsigned n_sessions) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { unsigned s = session_of[i]; if (s < n_sessions) atomicAdd(&counts[s], 1u); }
}
"#;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    Blocking,
    Polling { spins_before_yield: u32 },
    Event,
}

pub struct SessionWindow {
    stream: Stream,
    done: Event,
    kernel: Kernel,
    counts_dev: DeviceBuffer<u32>,
    counts_host: PinnedBuffer<u32>,
    completion: Completion,
}

impl SessionWindow {
    pub fn new(ctx: &Context, sessions: usize, completion: Completion) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            done: ctx.new_event()?,
            kernel: ctx.load_cuda(SESSION_SRC)?.function("session_counts")?,
            counts_dev: ctx.alloc_zeroed::<u32>(sessions)?,
            counts_host: ctx.alloc_pinned::<u32>(sessions)?,
            completion,
        })
    }

    fn wait(&self) -> Result<()> {
        match self.completion {
            Completion::Blocking => self.stream.synchronize(),
            Completion::Polling { spins_before_yield } => {
                let mut spins = 0u32;
                while !self.stream.query()? {
                    spins += 1;
                    if spins >= spins_before_yield {
                        std::thread::yield_now();
                        spins = 0;
                    }
                }
                Ok(())
            }
            Completion::Event => {
                self.stream.record_event(&self.done)?;
                self.done.synchronize()
            }
        }
    }

    pub fn close_window(&mut self, session_of: &DeviceBuffer<u32>, names: &[String]) -> Result<HashMap<String, u32>> {
        let n = session_of.len() as u32;
        let n_sessions = self.counts_dev.len() as u32;
        self.stream.memset_d32_async(&mut self.counts_dev, 0)?;
        unsafe { self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[session_of, &self.counts_dev, &n, &n_sessions])? };
        // SAFETY: counts_host is read only after `wait`.
        unsafe { self.stream.copy_dtoh_async(&mut self.counts_host, &self.counts_dev)? };
        self.wait()?;
        Ok(names.iter().cloned().zip(self.counts_host.iter().copied()).filter(|(_, c)| *c > 0).collect())
    }
}
