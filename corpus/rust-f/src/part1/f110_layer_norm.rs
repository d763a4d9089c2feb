//! case: a layer-norm helper uploads its input slice with `clone_htod` (pageable, size known only at run time) and, when `NORM_DEBUG` is set, prints the first normalized values by turning the cudarc device pointer into a host slice, after synchronizing (which does not make a device address readable by the host)
//! expect: host_deref_device_ptr=1, pageable_async_copy=1

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaStream, DevicePtr, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const NORM_SRC: &str = r#"
extern "C" __global__ void layer_norm(float* x, unsigned int rows, unsigned int cols, float eps)
{
    unsigned int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float* row = x + (size_t)r * cols;
    float mean = 0.0f, var = 0.0f;
    for (unsigned int c = 0; c < cols; ++c) mean += row[c];
    mean /= cols;
    for (unsigned int c = 0; c < cols; ++c) { float d = row[c] - mean; var += d * d; }
    float inv = rsqrtf(var / cols + eps);
    for (unsigned int c = 0; c < cols; ++c) row[c] = (row[c] - mean) * inv;
}
"#;

pub struct LayerNorm {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    out: PinnedHostSlice<f32>,
    cols: usize,
}

impl LayerNorm {
    pub fn new(ctx: &Arc<CudaContext>, max_rows: usize, cols: usize) -> Result<Self, Box<dyn Error>> {
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(NORM_SRC)?)?.load_function("layer_norm")?;
        let out = unsafe { ctx.alloc_pinned_with_flags::<f32>(max_rows * cols, 0)? };
        Ok(Self { stream, kernel, out, cols })
    }

    pub fn apply(&mut self, input: &[f32]) -> Result<Vec<f32>, Box<dyn Error>> {
        let rows = (input.len() / self.cols) as u32;
        let mut dev = self.stream.clone_htod(input)?; // EXPECT: pageable_async_copy
        let cols = self.cols as u32;
        let cfg = LaunchConfig { grid_dim: (rows.div_ceil(128), 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream.launch_builder(&self.kernel).arg(&mut dev).arg(&rows).arg(&cols).arg(&1e-5f32).launch(cfg)?;
        }

        if std::env::var_os("NORM_DEBUG").is_some() {
            self.stream.synchronize()?;
            let (ptr, _guard) = dev.device_ptr(&self.stream);
            let shown = input.len().min(8);
            eprintln!("layer_norm head: {:?}", unsafe { std::slice::from_raw_parts(ptr as *const f32, shown) }); // EXPECT: host_deref_device_ptr
        }

        let n = input.len();
        self.stream.memcpy_dtoh(&dev, &mut self.out)?;
        self.stream.synchronize()?;
        Ok(self.out.as_slice()?[..n].to_vec())
    }
}

pub fn run() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let mut norm = LayerNorm::new(&ctx, 4096, 768)?;
    let x: Vec<f32> = (0..4096 * 768).map(|i| ((i * 37) % 101) as f32).collect();
    let y = norm.apply(&x)?;
    println!("row 0 first value {:.4}", y[0]);
    Ok(())
}
