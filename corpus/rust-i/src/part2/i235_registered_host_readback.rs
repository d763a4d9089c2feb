//! case: Parquet-style column exporter (runtime crate): the caller's output Vec is page-locked in place with register_host and filled by copy_dtoh_async; the exporter computes the column statistics from the registered memory before synchronizing (page-locked memory stays in flight until the stream is done)
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Result, Stream};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ColumnStats {
    pub min: f64,
    pub max: f64,
    pub null_count: u64,
}

pub struct ColumnExporter {
    stream: Stream,
}

impl ColumnExporter {
    pub fn new(ctx: &Context) -> Result<Self> {
        Ok(ColumnExporter { stream: ctx.new_stream()? })
    }

    /// Fills `out` (the page buffer of the file writer) with the column and returns its stats.
    pub fn export_column(&self, ctx: &Context, column: &DeviceBuffer<f64>, out: &mut Vec<f64>) -> Result<ColumnStats> {
        out.resize(column.len(), 0.0);
        let mut page = ctx.register_host(out.as_mut_slice())?;
        unsafe { self.stream.copy_dtoh_async(&mut page, column)? };

        let stats = page.iter().fold(ColumnStats { min: f64::INFINITY, max: f64::NEG_INFINITY, null_count: 0 }, |s, &v| { // EXPECT: missing_sync
            if v.is_nan() {
                ColumnStats { null_count: s.null_count + 1, ..s }
            } else {
                ColumnStats { min: s.min.min(v), max: s.max.max(v), ..s }
            }
        });
        self.stream.synchronize()?;
        drop(page); // cuMemHostUnregister, after the copy finished
        Ok(stats)
    }
}
