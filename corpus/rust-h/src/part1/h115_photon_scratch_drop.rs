//! case: Monte Carlo photon transport batch that drops its scratch `CudaSlice` right after launching the kernel that uses it, without synchronizing: cudarc frees a `CudaSlice` stream-ordered on the stream it was allocated on (`cuMemFreeAsync`, or synchronize-then-free without memory pools), the same stream the kernel runs on, so the free waits for the kernel; tallies are read after synchronize
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const TRANSPORT_SRC: &str = r#"
extern "C" __global__ void transport(unsigned long long* rng, float* scratch, float* absorbed, int n, float mu_a, float mu_s) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    unsigned long long s = rng[p];
    float w = 1.f, depth = 0.f;
    for (int step = 0; step < 64 && w > 1e-3f; ++step) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        float u = ((s >> 40) + 0.5f) / 16777216.f;
        depth += -logf(u) / (mu_a + mu_s);
        scratch[p] = depth;
        w *= mu_s / (mu_a + mu_s);
    }
    rng[p] = s;
    absorbed[p] = 1.f - w;
}
"#;

pub struct PhotonBatch {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    rng_state: CudaSlice<u64>,
    absorbed: CudaSlice<f32>,
    scratch: Option<CudaSlice<f32>>,
    tally: PinnedHostSlice<f32>,
    n_photons: usize,
}

impl PhotonBatch {
    pub fn new(ctx: &Arc<CudaContext>, n_photons: usize, seed: u64) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(TRANSPORT_SRC)?)?.load_function("transport")?;
        // Per-photon streams are derived from this one seed inside the kernel's first step.
        let seeds: [u64; 4] = [seed, seed ^ 0x9E37_79B9, seed.rotate_left(17), !seed];
        let mut rng_state = stream.alloc_zeros::<u64>(n_photons.max(4))?;
        stream.memcpy_htod(&seeds, &mut rng_state.slice_mut(0..4))?;
        let absorbed = stream.alloc_zeros::<f32>(n_photons)?;
        let tally = unsafe { ctx.alloc_pinned_with_flags::<f32>(n_photons, 0)? };
        Ok(Self { stream, kernel, rng_state, absorbed, scratch: None, tally, n_photons })
    }

    /// Runs one batch and returns the absorbed fraction.
    pub fn run(&mut self, mu_a: f32, mu_s: f32) -> Result<f32, DriverError> {
        let scratch = match self.scratch.take() {
            Some(s) => s,
            None => self.stream.alloc_zeros::<f32>(self.n_photons)?,
        };
        let scratch = self.scratch.insert(scratch);
        let n = self.n_photons as i32;
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(&mut self.rng_state).arg(scratch).arg(&mut self.absorbed).arg(&n).arg(&mu_a).arg(&mu_s);
        unsafe { launch.launch(LaunchConfig::for_num_elems(self.n_photons as u32)) }?;

        // The depth scratch is only needed inside the kernel: give the memory back now.
        self.scratch = None;

        self.stream.memcpy_dtoh(&self.absorbed, &mut self.tally)?;
        self.stream.synchronize()?;
        Ok(self.tally.as_slice()?.iter().sum::<f32>() / self.n_photons as f32)
    }
}
