//! case: feature store snapshot with generic GPU columns and a `dyn ColumnSink`; each column is copied into its own non-write-combined pinned buffer and handed to the sink after an event recorded behind the copy is synchronized, and a raw `cuMemHostAlloc` export arena is read after `stream.synchronize()` and released with `cuMemFreeHost` in its `Drop`
//! expect: none

mod arena;
mod column;

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream, DriverError};

pub use arena::ExportArena;
pub use column::{ColumnSink, GpuColumn};

/// Collects every column it is given, by name.
#[derive(Default)]
pub struct CollectingSink<T> {
    pub columns: Vec<(String, Vec<T>)>,
}

impl<T: Copy> ColumnSink<T> for CollectingSink<T> {
    fn consume(&mut self, name: &str, values: &[T]) {
        self.columns.push((name.to_string(), values.to_vec()));
    }
}

pub struct FeatureStore {
    stream: Arc<CudaStream>,
    pub prices: GpuColumn<f32>,
    pub clicks: GpuColumn<u32>,
    arena: ExportArena,
}

impl FeatureStore {
    pub fn new(ctx: &Arc<CudaContext>, rows: usize) -> Result<Self, DriverError> {
        let stream = ctx.new_stream()?;
        Ok(Self {
            prices: GpuColumn::zeros(ctx, &stream, "price", rows)?,
            clicks: GpuColumn::zeros(ctx, &stream, "clicks", rows)?,
            arena: ExportArena::new(stream.clone(), rows * 4)?,
            stream,
        })
    }

    pub fn snapshot(&mut self, f32_sink: &mut dyn ColumnSink<f32>, u32_sink: &mut dyn ColumnSink<u32>) -> Result<(), DriverError> {
        self.prices.materialize(&self.stream, f32_sink)?;
        self.clicks.materialize(&self.stream, u32_sink)?;
        Ok(())
    }

    /// Revenue per row, computed on the host from the exported price column.
    pub fn revenue(&mut self) -> Result<Vec<f64>, DriverError> {
        let prices = self.arena.export(&self.prices)?;
        let clicks = self.clicks.host_values()?;
        Ok(prices.iter().zip(clicks).map(|(&p, &c)| p as f64 * c as f64).collect())
    }
}
