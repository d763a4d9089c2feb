//! case: near-miss. Log ingest pipeline parses lines into a pinned (runtime-layer `alloc_pinned`) column of timestamps and uploads it with `copy_htod_async`: the host side is page-locked, and the buffer is only refilled after `stream.synchronize()` in `seal_batch`
//! expect: none

use std::io::BufRead;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct IngestBatch {
    pub rows: usize,
    pub first_ts: i64,
    pub last_ts: i64,
}

pub struct TimestampColumnWriter {
    stream: Stream,
    host: PinnedBuffer<i64>,
    dev: Vec<DeviceBuffer<i64>>,
    ctx: Context,
    fill: usize,
}

fn parse_ts(line: &str) -> Option<i64> {
    line.split_whitespace().next()?.parse().ok()
}

impl TimestampColumnWriter {
    pub fn new(ctx: &Context, rows_per_batch: usize) -> Result<Self> {
        Ok(Self { stream: ctx.new_stream()?, host: ctx.alloc_pinned::<i64>(rows_per_batch)?, dev: Vec::new(), ctx: ctx.clone(), fill: 0 })
    }

    fn seal_batch(&mut self) -> Result<IngestBatch> {
        let rows = self.fill;
        let (first_ts, last_ts) = (self.host[0], self.host[rows.saturating_sub(1)]);
        let mut dev = self.ctx.alloc::<i64>(self.host.len())?;
        // SAFETY: `host` is not touched again before the synchronize below.
        unsafe { self.stream.copy_htod_async(&mut dev, &self.host)? };
        self.stream.synchronize()?;
        self.dev.push(dev);
        self.fill = 0;
        Ok(IngestBatch { rows, first_ts, last_ts })
    }

    pub fn ingest<R: BufRead>(&mut self, reader: R) -> Result<Vec<IngestBatch>> {
        let mut batches = Vec::new();
        for line in reader.lines().map_while(|l| l.ok()) {
            let Some(ts) = parse_ts(&line) else { continue };
            self.host[self.fill] = ts;
            self.fill += 1;
            if self.fill == self.host.len() {
                batches.push(self.seal_batch()?);
            }
        }
        if self.fill > 0 {
            batches.push(self.seal_batch()?);
        }
        Ok(batches)
    }
}
