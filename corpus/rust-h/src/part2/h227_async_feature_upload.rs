//! case: online feature refresh written with `async fn` (an async trait source and an async uploader); rows fetched from the feature store come back as a `Vec<f32>` and are uploaded with `memcpy_htod` straight from that pageable vector
//! expect: pageable_async_copy=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError};

#[derive(Debug)]
pub enum RefreshError {
    Source(String),
    Cuda(DriverError),
}

impl From<DriverError> for RefreshError {
    fn from(e: DriverError) -> Self {
        RefreshError::Cuda(e)
    }
}

pub trait FeatureSource {
    async fn fetch_rows(&self, keys: &[u64], row_len: usize) -> Result<Vec<f32>, RefreshError>;
}

/// Test double / cold-start source: deterministic pseudo-features.
pub struct SyntheticSource;

impl FeatureSource for SyntheticSource {
    async fn fetch_rows(&self, keys: &[u64], row_len: usize) -> Result<Vec<f32>, RefreshError> {
        Ok(keys
            .iter()
            .flat_map(|&k| (0..row_len).map(move |j| ((k.wrapping_mul(31) + j as u64) % 997) as f32 / 997.0))
            .collect())
    }
}

pub struct FeatureUploader<S: FeatureSource> {
    source: S,
    stream: Arc<CudaStream>,
    table: CudaSlice<f32>,
    row_len: usize,
    refreshed_rows: u64,
}

impl<S: FeatureSource> FeatureUploader<S> {
    pub fn new(ctx: &Arc<CudaContext>, source: S, max_rows: usize, row_len: usize) -> Result<Self, DriverError> {
        let stream = ctx.new_stream()?;
        let table = stream.alloc_zeros::<f32>(max_rows * row_len)?;
        Ok(Self { source, stream, table, row_len, refreshed_rows: 0 })
    }

    /// Refreshes the first `keys.len()` rows of the device table.
    pub async fn refresh(&mut self, keys: &[u64]) -> Result<usize, RefreshError> {
        let rows = self.source.fetch_rows(keys, self.row_len).await?;
        let n = rows.len().min(self.table.len());
        let mut dst = self.table.slice_mut(..n);
        self.stream.memcpy_htod(&rows[..n], &mut dst)?; // EXPECT: pageable_async_copy
        self.refreshed_rows += (n / self.row_len) as u64;
        Ok(n / self.row_len)
    }

    pub fn table(&self) -> &CudaSlice<f32> {
        &self.table
    }
}
