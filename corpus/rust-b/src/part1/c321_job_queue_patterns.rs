//! case: a job dispatcher matches jobs with or-patterns, `let else` and `if let`; every arm that reads a pinned result synchronizes first
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub enum Job {
    Sum(DeviceBuffer<f32>),
    Max(DeviceBuffer<f32>),
    Min(DeviceBuffer<f32>),
    Skip,
}

pub struct Dispatcher {
    stream: Stream,
    host: PinnedBuffer<f32>,
}

impl Dispatcher {
    pub fn new(ctx: &Context, cap: usize) -> Result<Self> {
        Ok(Self { stream: ctx.new_stream()?, host: ctx.alloc_pinned(cap)? })
    }

    fn fetch(&mut self, dev: &DeviceBuffer<f32>) -> Result<&[f32]> {
        let out = &mut self.host[..dev.len()];
        // SAFETY: synchronized before the slice is handed out.
        unsafe { self.stream.copy_dtoh_async(out, dev)? };
        self.stream.synchronize()?;
        Ok(&self.host[..dev.len()])
    }

    pub fn run(&mut self, job: &Job) -> Result<Option<f32>> {
        let value = match job {
            Job::Sum(d) => self.fetch(d)?.iter().sum(),
            Job::Max(d) | Job::Min(d) => {
                let want_max = matches!(job, Job::Max(_));
                let v = self.fetch(d)?;
                let Some(first) = v.first().copied() else { return Ok(None) };
                v.iter().fold(first, |a, &b| if want_max { a.max(b) } else { a.min(b) })
            }
            Job::Skip => return Ok(None),
        };
        Ok(Some(value))
    }

    pub fn run_all(&mut self, jobs: Vec<Job>) -> Result<Vec<f32>> {
        let mut out = Vec::new();
        for job in &jobs {
            if let Some(v) = self.run(job)? {
                out.push(v);
            }
        }
        Ok(out)
    }
}
