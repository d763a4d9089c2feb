//! case: power-spectrum analyser on cudarc's safe API with two streams created by new_stream (multi-stream mode, event tracking on): pinned buffers from alloc_pinned_with_flags(.., 0); the host reads the spectrum through PinnedHostSlice::as_slice, which waits on the event cudarc recorded after the device-to-host copy
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};

const DFT_SRC: &str = r#"
extern "C" __global__ void hann_window(const float* x, float* xw, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) xw[i] = x[i] * (0.5f - 0.5f * cospif(2.f * i / (n - 1)));
}

// Direct DFT magnitude for the first n/2 bins (n is small: one analysis frame).
extern "C" __global__ void power_bins(const float* xw, unsigned n, float* power) {
    unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n / 2) return;
    float re = 0.f, im = 0.f;
    for (unsigned t = 0; t < n; ++t) {
        float s, c;
        sincospif(-2.f * k * t / n, &s, &c);
        re += xw[t] * c;
        im += xw[t] * s;
    }
    power[k] = (re * re + im * im) / n;
}
"#;

pub struct SpectrumAnalyser {
    upload: Arc<CudaStream>,
    compute: Arc<CudaStream>,
    window: cudarc::driver::CudaFunction,
    power: cudarc::driver::CudaFunction,
    frame: PinnedHostSlice<f32>,
    spectrum: PinnedHostSlice<f32>,
    n: usize,
}

impl SpectrumAnalyser {
    pub fn new(n: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(0)?;
        let upload = ctx.new_stream()?;
        let compute = ctx.new_stream()?;
        let ptx = cudarc::nvrtc::compile_ptx(DFT_SRC)?;
        let module = ctx.load_module(ptx)?;
        let window = module.load_function("hann_window")?;
        let power = module.load_function("power_bins")?;
        let frame = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0)? };
        let spectrum = unsafe { ctx.alloc_pinned_with_flags::<f32>(n / 2, 0)? };
        Ok(Self { upload, compute, window, power, frame, spectrum, n })
    }

    /// Peak bin and its power for one frame of samples.
    pub fn analyse(&mut self, samples: &[f32]) -> Result<(usize, f32), DriverError> {
        self.frame.as_mut_slice()?.copy_from_slice(&samples[..self.n]);
        let d_frame = self.upload.clone_htod(&self.frame)?;
        let mut d_windowed = self.compute.alloc_zeros::<f32>(self.n)?;
        let mut d_power = self.compute.alloc_zeros::<f32>(self.n / 2)?;
        let n = self.n as u32;
        let mut b = self.compute.launch_builder(&self.window);
        b.arg(&d_frame).arg(&mut d_windowed).arg(&n);
        unsafe { b.launch(LaunchConfig::for_num_elems(n))? };
        let mut b = self.compute.launch_builder(&self.power);
        b.arg(&d_windowed).arg(&n).arg(&mut d_power);
        unsafe { b.launch(LaunchConfig::for_num_elems(n / 2))? };
        self.compute.memcpy_dtoh(&d_power, &mut self.spectrum)?;

        // as_slice waits on the event recorded behind the copy into `spectrum`.
        let spectrum = self.spectrum.as_slice()?;
        let (peak, &p) = spectrum
            .iter()
            .enumerate()
            .skip(1)
            .max_by(|a, b| a.1.total_cmp(b.1))
            .unwrap_or((0, &0.0));
        Ok((peak, p))
    }
}
