//! case: 2D Haar wavelet transform for image compression: the transform kernel runs on a non-blocking stream from `ctx.new_stream()`, and the coefficients are read back with `result::memcpy_dtoh_sync` (`cuMemcpyDtoH`, the legacy default stream), which does not wait for non-blocking streams: the copy can read the coefficients before the kernel has written them
//! expect: missing_sync=1

use std::sync::Arc;

use cudarc::driver::{result, CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const HAAR_SRC: &str = r#"
extern "C" __global__ void haar_rows(const float* img, float* coeffs, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (2 * x + 1 >= w || y >= h) return;
    float a = img[y * w + 2 * x], b = img[y * w + 2 * x + 1];
    coeffs[y * w + x] = 0.70710678f * (a + b);
    coeffs[y * w + w / 2 + x] = 0.70710678f * (a - b);
}
"#;

pub struct HaarCodec {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    d_img: CudaSlice<f32>,
    d_coeffs: CudaSlice<f32>,
    h_img: PinnedHostSlice<f32>,
    width: usize,
    height: usize,
}

impl HaarCodec {
    pub fn new(ctx: &Arc<CudaContext>, width: usize, height: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        Ok(Self {
            kernel: ctx.load_module(compile_ptx(HAAR_SRC)?)?.load_function("haar_rows")?,
            d_img: stream.alloc_zeros::<f32>(width * height)?,
            d_coeffs: stream.alloc_zeros::<f32>(width * height)?,
            h_img: unsafe { ctx.alloc_pinned_with_flags::<f32>(width * height, 0)? },
            stream,
            width,
            height,
        })
    }

    /// Transforms one image; returns the coefficients with magnitude above `keep`, as (index, value).
    pub fn compress(&mut self, image: &[f32], keep: f32) -> Result<Vec<(u32, f32)>, DriverError> {
        self.stream.synchronize()?;
        self.h_img.as_mut_slice()?.copy_from_slice(image);
        self.stream.memcpy_htod(&self.h_img, &mut self.d_img)?;
        let (w, h) = (self.width as i32, self.height as i32);
        let cfg = LaunchConfig { grid_dim: ((self.width as u32 / 2).div_ceil(128), self.height as u32, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(&self.d_img).arg(&mut self.d_coeffs).arg(&w).arg(&h);
        unsafe { launch.launch(cfg) }?;

        // A blocking copy: returns once the data is on the host.
        let mut coeffs = vec![0f32; self.width * self.height];
        {
            let (src, _guard) = self.d_coeffs.device_ptr(&self.stream);
            unsafe { result::memcpy_dtoh_sync(&mut coeffs, src)? }; // EXPECT: missing_sync
        }
        Ok(coeffs
            .iter()
            .enumerate()
            .filter(|(_, c)| c.abs() > keep)
            .map(|(i, &c)| (i as u32, c))
            .collect())
    }
}
