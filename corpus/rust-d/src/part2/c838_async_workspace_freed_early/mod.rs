//! case: a conv layer takes its workspace from `cuMemAllocAsync` on its stream, and the workspace guard's Drop (in a sub-module) releases it with `cuMemFree_v2`, which does not wait for pointers from `cuMemAllocAsync`; the guard drops at the end of `forward`, while the kernel using the workspace may still run
//! expect: missing_sync=1

mod workspace;

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use workspace::Workspace;

const IM2COL_SRC: &str = r#"
extern "C" __global__ void im2col_gemm(const float* img, const float* w, float* ws, float* out,
                                       int h, int wd, int k) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int oh = h - k + 1, ow = wd - k + 1;
    if (o >= oh * ow) return;
    int y = o / ow, x = o % ow;
    float* col = ws + (size_t)o * k * k;
    for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j) col[i * k + j] = img[(y + i) * wd + (x + j)];
    float acc = 0.0f;
    for (int t = 0; t < k * k; ++t) acc += col[t] * w[t];
    out[o] = acc;
}
"#;

pub struct Conv2d {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    weights: CudaSlice<f32>,
    k: i32,
}

impl Conv2d {
    pub fn new(ctx: &Arc<CudaContext>, k: i32) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        Ok(Self {
            kernel: ctx.load_module(compile_ptx(IM2COL_SRC)?)?.load_function("im2col_gemm")?,
            weights: stream.alloc_zeros::<f32>((k * k) as usize)?,
            stream,
            k,
        })
    }

    pub fn forward(&self, img: &CudaSlice<f32>, out: &mut CudaSlice<f32>, h: i32, w: i32) -> Result<(), DriverError> {
        let (oh, ow) = (h - self.k + 1, w - self.k + 1);
        let cols = (oh * ow) as usize;
        let ws = Workspace::new(cols * (self.k * self.k) as usize * 4, self.stream.cu_stream())?;
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(img).arg(&self.weights).arg(&ws.ptr).arg(out).arg(&h).arg(&w).arg(&self.k);
        unsafe { launch.launch(LaunchConfig::for_num_elems(cols as u32)) }?;
        Ok(())
    }
}
