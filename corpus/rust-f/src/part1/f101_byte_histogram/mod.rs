//! case: a byte-histogram pipeline that only ever uses cudarc's default stream (one stream, so cudarc records no events on the pinned readback); the report reads the readback through `as_slice` before anyone synchronized the stream
//! expect: missing_sync=1

mod pipeline;
mod report;

pub use pipeline::HistogramPipeline;
pub use report::Summary;

/// Builds the histogram of `data` on device 0 and prints a one-line summary.
pub fn run(data: &[u8]) -> Result<Summary, Box<dyn std::error::Error>> {
    let mut pipeline = HistogramPipeline::new(0, data.len().max(1))?;
    pipeline.submit(data)?;
    let summary = report::summarize(&pipeline)?;
    println!(
        "{} bytes, {} distinct values, most frequent 0x{:02x}",
        summary.total, summary.distinct, summary.mode
    );
    pipeline.finish()?;
    Ok(summary)
}
