//! case: FIR filter bank over raw cudart FFI (own extern "C" block): the signal is uploaded with cudaMemcpyAsync straight from the caller's Vec<f32> (pageable), and the bank's Drop releases the cudaMallocHost output staging with cudaFree
//! expect: pageable_async_copy=1, mismatched_free=1

mod ffi;
mod bank;

pub use bank::FilterBank;

#[derive(Debug)]
pub struct CudaRtError {
    pub call: &'static str,
    pub code: i32,
}

impl std::fmt::Display for CudaRtError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} failed with cudaError {}", self.call, self.code)
    }
}

impl std::error::Error for CudaRtError {}

pub(crate) fn check(call: &'static str, code: i32) -> Result<(), CudaRtError> {
    if code == 0 { Ok(()) } else { Err(CudaRtError { call, code }) }
}

/// Filters a mono recording with a low-pass and a high-pass bank and returns the band energies.
pub fn split_bands(signal: &Vec<f32>, taps_lo: &[f32], taps_hi: &[f32]) -> Result<(f32, f32), CudaRtError> {
    let mut bank = FilterBank::new(signal.len(), taps_lo.len().max(taps_hi.len()))?;
    bank.load_signal(signal)?;
    let lo = bank.apply(taps_lo)?;
    let hi = bank.apply(taps_hi)?;
    Ok((lo, hi))
}
