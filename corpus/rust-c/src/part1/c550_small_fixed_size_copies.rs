//! case: a convolution stage uploads its 3x3 filter taps from a stack array and reads back a 4-word status block into a stack array with cudarc's `memcpy_htod`/`memcpy_dtoh`: pageable, but a few dozen bytes each (under the size where pinning pays), and a D2H copy to pageable memory returns once done
//! expect: none
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const CONV_SRC: &str = r#"
extern "C" __global__ void conv3x3(const float* img, const float* taps, float* out, unsigned int* status, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    float acc = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) acc += taps[(dy + 1) * 3 + dx + 1] * img[(y + dy) * w + x + dx];
    out[y * w + x] = acc;
    if (!isfinite(acc)) atomicAdd(&status[0], 1u);
    atomicMax(&status[1], (unsigned int)fabsf(acc));
}
"#;

pub struct Conv3x3 {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    taps: CudaSlice<f32>,
    status: CudaSlice<u32>,
}

impl Conv3x3 {
    pub fn new(ctx: &Arc<CudaContext>, taps: [f32; 9]) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        let kernel = ctx.load_module(compile_ptx(CONV_SRC)?)?.load_function("conv3x3")?;
        let mut d_taps = stream.alloc_zeros::<f32>(9)?;
        stream.memcpy_htod(&taps, &mut d_taps)?;
        let status = stream.alloc_zeros::<u32>(4)?;
        Ok(Self { stream, kernel, taps: d_taps, status })
    }

    pub fn set_taps(&mut self, taps: [f32; 9]) -> Result<(), Box<dyn std::error::Error>> {
        self.stream.memcpy_htod(&taps, &mut self.taps)?;
        Ok(())
    }

    /// Runs the filter; returns an error when the output contains non-finite values.
    pub fn apply(&mut self, img: &CudaSlice<f32>, out: &mut CudaSlice<f32>, w: usize, h: usize) -> Result<u32, Box<dyn std::error::Error>> {
        let (wi, hi) = (w as i32, h as i32);
        self.stream.memset_zeros(&mut self.status)?;
        let cfg = LaunchConfig { grid_dim: ((w as u32).div_ceil(128), h as u32, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream
                .launch_builder(&self.kernel)
                .arg(img)
                .arg(&self.taps)
                .arg(out)
                .arg(&mut self.status)
                .arg(&wi)
                .arg(&hi)
                .launch(cfg)?;
        }
        let mut status = [0u32; 4];
        self.stream.memcpy_dtoh(&self.status, &mut status)?;
        if status[0] > 0 {
            return Err(format!("conv3x3: {} non-finite outputs", status[0]).into());
        }
        Ok(status[1])
    }
}
