//! case: a video pipeline uploads each decoded RGB frame from its `Vec<u8>` and downloads the grayscale plane into a `Vec<u8>`: both copies of a full frame go through pageable memory (reading the Vec after the D2H copy is fine: a copy to pageable memory returns once done)
//! expect: pageable_async_copy=2
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const GRAY_SRC: &str = r#"
extern "C" __global__ void rgb_to_gray(const unsigned char* rgb, unsigned char* gray, int pixels) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pixels) {
        float y = 0.299f * rgb[3 * i] + 0.587f * rgb[3 * i + 1] + 0.114f * rgb[3 * i + 2];
        gray[i] = (unsigned char)fminf(y, 255.0f);
    }
}
"#;

pub struct Frame {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<u8>, // packed RGB, as the decoder hands it over
}

pub struct GrayPipeline {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    d_rgb: CudaSlice<u8>,
    d_gray: CudaSlice<u8>,
}

impl GrayPipeline {
    pub fn new(width: usize, height: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.default_stream();
        let kernel = ctx.load_module(compile_ptx(GRAY_SRC)?)?.load_function("rgb_to_gray")?;
        let d_rgb = stream.alloc_zeros::<u8>(width * height * 3)?;
        let d_gray = stream.alloc_zeros::<u8>(width * height)?;
        Ok(Self { stream, kernel, d_rgb, d_gray })
    }

    fn convert(&mut self, frame: &Frame) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
        let pixels = (frame.width * frame.height) as i32;
        self.stream.memcpy_htod(&frame.pixels, &mut self.d_rgb)?; // EXPECT: pageable_async_copy
        unsafe {
            self.stream
                .launch_builder(&self.kernel)
                .arg(&self.d_rgb)
                .arg(&mut self.d_gray)
                .arg(&pixels)
                .launch(LaunchConfig::for_num_elems(pixels as u32))?;
        }
        let mut gray = vec![0u8; frame.width * frame.height];
        self.stream.memcpy_dtoh(&self.d_gray, &mut gray)?; // EXPECT: pageable_async_copy
        Ok(gray)
    }

    /// Converts a batch and returns the mean luminance of each frame.
    pub fn mean_luma(&mut self, frames: &[Frame]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
        frames
            .iter()
            .map(|f| {
                let gray = self.convert(f)?;
                let sum: u64 = gray.iter().map(|&p| p as u64).sum();
                Ok(sum as f32 / gray.len().max(1) as f32)
            })
            .collect()
    }
}
