//! case: FFT power-spectrum stage on the context's default stream alone (no other stream, so cudarc records no event on the pinned buffer); the spectrum is copied into pinned memory and `as_slice` is read before the stream is synchronized: stale data
//! expect: missing_sync=1

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::{compile_ptx, CompileError};

const POWER_SPECTRUM_SRC: &str = r#"
extern "C" __global__ void power_spectrum(const float* bins, float* power, int n_bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_bins) {
        float re = bins[2 * i];
        float im = bins[2 * i + 1];
        power[i] = re * re + im * im;
    }
}
"#;

#[derive(Debug)]
pub enum AnalyzerError {
    Driver(DriverError),
    Compile(CompileError),
}

impl From<DriverError> for AnalyzerError {
    fn from(e: DriverError) -> Self {
        AnalyzerError::Driver(e)
    }
}

impl From<CompileError> for AnalyzerError {
    fn from(e: CompileError) -> Self {
        AnalyzerError::Compile(e)
    }
}

/// Finds the dominant frequency bin of successive FFT frames.
pub struct SpectrumAnalyzer {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    d_bins: CudaSlice<f32>,
    d_power: CudaSlice<f32>,
    h_bins: PinnedHostSlice<f32>,
    h_power: PinnedHostSlice<f32>,
    n_bins: usize,
    sample_rate: f32,
}

impl SpectrumAnalyzer {
    pub fn new(ctx: &Arc<CudaContext>, n_bins: usize, sample_rate: f32) -> Result<Self, AnalyzerError> {
        let stream = ctx.default_stream();
        let ptx = compile_ptx(POWER_SPECTRUM_SRC)?;
        let kernel = ctx.load_module(ptx)?.load_function("power_spectrum")?;
        let d_bins = stream.alloc_zeros::<f32>(2 * n_bins)?;
        let d_power = stream.alloc_zeros::<f32>(n_bins)?;
        // Plain page-locked memory (flags 0): cached, fine for host reads.
        let h_bins = unsafe { ctx.alloc_pinned_with_flags::<f32>(2 * n_bins, 0)? };
        let h_power = unsafe { ctx.alloc_pinned_with_flags::<f32>(n_bins, 0)? };
        Ok(Self { stream, kernel, d_bins, d_power, h_bins, h_power, n_bins, sample_rate })
    }

    fn bin_to_hz(&self, bin: usize) -> f32 {
        bin as f32 * self.sample_rate / (2.0 * self.n_bins as f32)
    }

    /// `fft_output` holds the complex bins of one frame, as produced by the CPU FFT.
    pub fn dominant_frequency(&mut self, fft_output: &[(f32, f32)]) -> Result<(f32, f32), AnalyzerError> {
        let staging = self.h_bins.as_mut_slice()?;
        staging
            .chunks_exact_mut(2)
            .zip(fft_output.iter())
            .for_each(|(dst, &(re, im))| {
                dst[0] = re;
                dst[1] = im;
            });
        self.stream.memcpy_htod(&self.h_bins, &mut self.d_bins)?;

        let n = self.n_bins as i32;
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(&self.d_bins).arg(&mut self.d_power).arg(&n);
        unsafe { launch.launch(LaunchConfig::for_num_elems(self.n_bins as u32)) }?;

        self.stream.memcpy_dtoh(&self.d_power, &mut self.h_power)?;
        let (bin, power) = self.h_power.as_slice()?.iter().copied().enumerate().fold((0usize, f32::MIN), |best, (i, p)| if p > best.1 { (i, p) } else { best }); // EXPECT: missing_sync
        // Synchronized before the next frame overwrites the staging buffer.
        self.stream.synchronize()?;
        Ok((self.bin_to_hz(bin), power))
    }
}
