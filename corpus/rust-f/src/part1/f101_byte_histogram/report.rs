use cudarc::driver::DriverError;

use super::pipeline::HistogramPipeline;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub total: u64,
    pub distinct: usize,
    pub mode: u8,
}

/// Reads the bins the pipeline copied back.
pub fn summarize(p: &HistogramPipeline) -> Result<Summary, DriverError> {
    let bins: Vec<u32> = p.readback.as_slice()?.to_vec(); // EXPECT: missing_sync
    let total = bins.iter().map(|&c| u64::from(c)).sum();
    let distinct = bins.iter().filter(|&&c| c > 0).count();
    let mode = bins
        .iter()
        .enumerate()
        .max_by_key(|&(_, &c)| c)
        .map(|(b, _)| b as u8)
        .unwrap_or(0);
    Ok(Summary { total, distinct, mode })
}
