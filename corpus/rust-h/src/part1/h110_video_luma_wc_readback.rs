//! case: video tone-mapping pipeline that uses cudarc's `alloc_pinned` (always `CU_MEMHOSTALLOC_WRITECOMBINED` in 0.19) for both the upload staging buffer (only written by the host: fine) and the readback buffer, whose luma histogram is then computed on the host after synchronize: uncached reads of write-combined memory
//! expect: write_combined_host_read=1

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const TONEMAP_SRC: &str = r#"
extern "C" __global__ void reinhard_luma(const unsigned char* in_luma, unsigned char* out_luma, int n, float exposure) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float l = in_luma[i] * (exposure / 255.f);
    out_luma[i] = (unsigned char)(255.f * l / (1.f + l));
}
"#;

pub struct FrameStats {
    pub histogram: [u32; 256],
    pub mean: f32,
}

pub struct TonemapPipeline {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    upload: PinnedHostSlice<u8>,
    readback: PinnedHostSlice<u8>,
    d_in: CudaSlice<u8>,
    d_out: CudaSlice<u8>,
    pixels: usize,
    exposure: f32,
}

impl TonemapPipeline {
    pub fn new(ctx: &Arc<CudaContext>, width: usize, height: usize, exposure: f32) -> Result<Self, Box<dyn std::error::Error>> {
        let pixels = width * height;
        let stream = ctx.default_stream();
        let kernel = ctx.load_module(compile_ptx(TONEMAP_SRC)?)?.load_function("reinhard_luma")?;
        let upload = unsafe { ctx.alloc_pinned::<u8>(pixels)? };
        let readback = unsafe { ctx.alloc_pinned::<u8>(pixels)? };
        let d_in = stream.alloc_zeros::<u8>(pixels)?;
        let d_out = stream.alloc_zeros::<u8>(pixels)?;
        Ok(Self { stream, kernel, upload, readback, d_in, d_out, pixels, exposure })
    }

    /// Tone-maps the luma plane of one NV12 frame and returns statistics of the result.
    pub fn process_frame(&mut self, nv12: &[u8]) -> Result<FrameStats, DriverError> {
        self.upload.as_mut_slice()?.copy_from_slice(&nv12[..self.pixels]);
        self.stream.memcpy_htod(&self.upload, &mut self.d_in)?;

        let n = self.pixels as i32;
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(&self.d_in).arg(&mut self.d_out).arg(&n).arg(&self.exposure);
        unsafe { launch.launch(LaunchConfig::for_num_elems(self.pixels as u32)) }?;

        self.stream.memcpy_dtoh(&self.d_out, &mut self.readback)?;
        self.stream.synchronize()?;

        let mut histogram = [0u32; 256];
        for &y in self.readback.as_slice()?.iter() { // EXPECT: write_combined_host_read
            histogram[y as usize] += 1;
        }
        let mean = histogram.iter().enumerate().map(|(v, &c)| v as f32 * c as f32).sum::<f32>() / self.pixels as f32;
        Ok(FrameStats { histogram, mean })
    }
}
