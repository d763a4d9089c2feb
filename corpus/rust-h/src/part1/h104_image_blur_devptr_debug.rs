//! case: separable Gaussian blur; a debug helper synchronizes and then dereferences the raw device pointer of the output image on the host to "peek" at the centre pixel: a host read of device memory (synchronizing does not make it host-visible)
//! expect: host_deref_device_ptr=1

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DriverError, LaunchConfig, PinnedHostSlice,
    PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const BLUR_SRC: &str = r#"
extern "C" __global__ void blur_rows(const unsigned char* src, unsigned char* dst, int w, int h, const float* taps, int radius) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.f;
    for (int k = -radius; k <= radius; ++k) {
        int xx = min(max(x + k, 0), w - 1);
        acc += taps[k + radius] * src[y * w + xx];
    }
    dst[y * w + x] = (unsigned char)fminf(acc, 255.f);
}
"#;

pub struct GaussianBlur {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    taps: CudaSlice<f32>,
    radius: i32,
    width: usize,
    height: usize,
    d_src: CudaSlice<u8>,
    d_dst: CudaSlice<u8>,
    h_io: PinnedHostSlice<u8>,
}

fn gaussian_taps(sigma: f32) -> [f32; 9] {
    let mut taps = [0f32; 9];
    for (i, t) in taps.iter_mut().enumerate() {
        let x = i as f32 - 4.0;
        *t = (-(x * x) / (2.0 * sigma * sigma)).exp();
    }
    let sum: f32 = taps.iter().sum();
    taps.iter_mut().for_each(|t| *t /= sum);
    taps
}

impl GaussianBlur {
    pub fn new(ctx: &Arc<CudaContext>, width: usize, height: usize, sigma: f32) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(BLUR_SRC)?)?.load_function("blur_rows")?;
        let taps = stream.clone_htod(&gaussian_taps(sigma))?;
        let d_src = stream.alloc_zeros::<u8>(width * height)?;
        let d_dst = stream.alloc_zeros::<u8>(width * height)?;
        let h_io = unsafe { ctx.alloc_pinned_with_flags::<u8>(width * height, 0)? };
        Ok(Self { stream, kernel, taps, radius: 4, width, height, d_src, d_dst, h_io })
    }

    pub fn blur(&mut self, image: &[u8]) -> Result<Vec<u8>, DriverError> {
        self.h_io.as_mut_slice()?.copy_from_slice(image);
        self.stream.memcpy_htod(&self.h_io, &mut self.d_src)?;
        let (w, h) = (self.width as i32, self.height as i32);
        let cfg = LaunchConfig {
            grid_dim: ((self.width as u32).div_ceil(256), self.height as u32, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(&self.d_src).arg(&mut self.d_dst).arg(&w).arg(&h).arg(&self.taps).arg(&self.radius);
        unsafe { launch.launch(cfg) }?;
        self.stream.memcpy_dtoh(&self.d_dst, &mut self.h_io)?;
        self.stream.synchronize()?;
        Ok(self.h_io.as_slice()?.to_vec())
    }

    /// Quick sanity check used by the CLI's `--verbose` flag.
    pub fn debug_center_pixel(&self) -> Result<u8, DriverError> {
        self.stream.synchronize()?;
        let (ptr, _record) = self.d_dst.device_ptr(&self.stream);
        let center = self.width * (self.height / 2) + self.width / 2;
        let value = unsafe { *(ptr as *const u8).add(center) }; // EXPECT: host_deref_device_ptr
        Ok(value)
    }
}
