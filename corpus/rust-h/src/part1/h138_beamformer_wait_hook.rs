//! case: ultrasound delay-and-sum beamformer whose completion policy is an injected trait object (`Box<dyn Fn(&CudaStream)>`, by default `stream.synchronize()`, in the clinical build a fence from the acquisition scheduler); the host reads the plain pinned image after calling it: whether the hook waits is not visible statically, and its contract is to block until the stream has drained
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const DAS_SRC: &str = r#"
extern "C" __global__ void delay_and_sum(const float* rf, float* image, int n_elem, int n_samples,
                                         int nx, int nz, float pitch, float dz, float fs_over_c) {
    int ix = blockIdx.x * blockDim.x + threadIdx.x, iz = blockIdx.y;
    if (ix >= nx) return;
    float x = (ix - 0.5f * nx) * pitch, z = iz * dz, acc = 0.f;
    for (int e = 0; e < n_elem; ++e) {
        float ex = (e - 0.5f * n_elem) * pitch;
        int s = (int)((z + sqrtf((x - ex) * (x - ex) + z * z)) * fs_over_c);
        if (s < n_samples) acc += rf[e * n_samples + s];
    }
    image[iz * nx + ix] = fabsf(acc);
}
"#;

/// Blocks until all work enqueued on the stream has completed.
pub type WaitHook = Box<dyn Fn(&CudaStream) -> Result<(), DriverError> + Send + Sync>;

pub struct BeamformerBuilder {
    nx: usize,
    nz: usize,
    wait: Option<WaitHook>,
}

impl BeamformerBuilder {
    pub fn new(nx: usize, nz: usize) -> Self {
        Self { nx, nz, wait: None }
    }

    pub fn with_wait_hook(mut self, hook: WaitHook) -> Self {
        self.wait = Some(hook);
        self
    }

    pub fn build(self, ctx: &Arc<CudaContext>) -> Result<Beamformer, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        Ok(Beamformer {
            kernel: ctx.load_module(compile_ptx(DAS_SRC)?)?.load_function("delay_and_sum")?,
            d_image: stream.alloc_zeros::<f32>(self.nx * self.nz)?,
            h_image: unsafe { ctx.alloc_pinned_with_flags::<f32>(self.nx * self.nz, 0)? },
            stream,
            nx: self.nx,
            nz: self.nz,
            wait: self.wait.unwrap_or_else(|| Box::new(|s: &CudaStream| s.synchronize())),
        })
    }
}

pub struct Beamformer {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    d_image: CudaSlice<f32>,
    h_image: PinnedHostSlice<f32>,
    nx: usize,
    nz: usize,
    wait: WaitHook,
}

impl Beamformer {
    /// `rf` holds the channel data already on the device. Returns the image's dynamic range in dB.
    pub fn beamform(&mut self, rf: &CudaSlice<f32>, n_elem: usize, n_samples: usize) -> Result<f32, DriverError> {
        let (ne, ns, nx, nz) = (n_elem as i32, n_samples as i32, self.nx as i32, self.nz as i32);
        let (pitch, dz, fs_over_c) = (3.0e-4f32, 1.0e-4f32, 40e6f32 / 1540.0);
        let cfg = LaunchConfig { grid_dim: ((self.nx as u32).div_ceil(128), self.nz as u32, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(rf).arg(&mut self.d_image).arg(&ne).arg(&ns).arg(&nx).arg(&nz).arg(&pitch).arg(&dz).arg(&fs_over_c);
        unsafe { launch.launch(cfg) }?;
        self.stream.memcpy_dtoh(&self.d_image, &mut self.h_image)?;

        (self.wait)(&self.stream)?;

        let image = self.h_image.as_slice()?;
        let (lo, hi) = image.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        Ok(20.0 * (hi / lo.max(1e-12)).log10())
    }
}
