//! case: cudarc alloc_pinned (write-combined) used only as upload staging that the host writes; results come back through a buffer allocated without the flag
//! expect: none
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void gamma_correct(const float* in, float* out, unsigned n, float g) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __powf(in[i], g);
}
"#;

pub struct ImageProcessor {
    stream: Arc<CudaStream>,
    f: CudaFunction,
    upload: PinnedHostSlice<f32>,
    download: PinnedHostSlice<f32>,
    dev_in: CudaSlice<f32>,
    dev_out: CudaSlice<f32>,
}

impl ImageProcessor {
    pub fn new(ctx: &Arc<CudaContext>, pixels: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        Ok(Self {
            f: ctx.load_module(compile_ptx(SRC)?)?.load_function("gamma_correct")?,
            // write-combined: fast host writes and uploads
            upload: unsafe { ctx.alloc_pinned::<f32>(pixels)? },
            // cached pinned memory: the host reads this one
            download: unsafe { ctx.alloc_pinned_with_flags::<f32>(pixels, 0)? },
            dev_in: stream.alloc_zeros(pixels)?,
            dev_out: stream.alloc_zeros(pixels)?,
            stream,
        })
    }

    pub fn process(&mut self, rgb8: &[u8], gamma: f32) -> Result<f32, Box<dyn std::error::Error>> {
        let staging = self.upload.as_mut_slice()?;
        staging.iter_mut().zip(rgb8).for_each(|(dst, &px)| *dst = px as f32 / 255.0);
        self.stream.memcpy_htod(&self.upload, &mut self.dev_in)?;
        let n = self.dev_in.len() as u32;
        unsafe {
            self.stream.launch_builder(&self.f).arg(&self.dev_in).arg(&mut self.dev_out).arg(&n).arg(&gamma).launch(LaunchConfig::for_num_elems(n))?
        };
        self.stream.memcpy_dtoh(&self.dev_out, &mut self.download)?;
        self.stream.synchronize()?;
        let out = self.download.as_slice()?;
        Ok(out.iter().copied().fold(0.0f32, f32::max))
    }
}
