//! case: hash-join operator of a GPU query engine on the runtime layer; the build side uploads the caller's `Vec<u64>` keys with `copy_htod_async` (pageable), and the probe side reads the match counter from its pinned buffer right after enqueuing the async readback, before the stream is synchronized
//! expect: pageable_async_copy=1, missing_sync=1

mod build;
mod probe;

use cuda_lint_runtime::{Context, Result, Stream};

pub use build::BuildSide;
pub use probe::{ProbeResult, ProbeSide};

pub struct JoinOperator {
    stream: Stream,
    build: BuildSide,
    probe: ProbeSide,
}

impl JoinOperator {
    pub fn new(ctx: &Context, max_build: usize, max_probe: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            build: BuildSide::new(ctx, max_build)?,
            probe: ProbeSide::new(ctx, max_probe)?,
        })
    }

    pub fn execute(&mut self, build_keys: &Vec<u64>, probe_keys: &Vec<u64>) -> Result<ProbeResult> {
        self.build.build(&self.stream, build_keys)?;
        self.probe.probe(&self.stream, &self.build, probe_keys)
    }
}
