//! case: 1-D convolution layer forward pass on the runtime layer; after synchronizing, a debug check reads the first activation through the output DeviceBuffer's raw device pointer, and the activations are then copied back into a Vec<f32> with copy_dtoh_async
//! expect: host_deref_device_ptr=1, pageable_async_copy=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const CONV_SRC: &str = r#"
extern "C" __global__ void conv1d_relu(const float* x, const float* w, const float* b, float* y,
                                       unsigned len, unsigned k, unsigned out_ch) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned c = blockIdx.y;
    if (t + k > len || c >= out_ch) return;
    float acc = b[c];
    for (unsigned j = 0; j < k; ++j) acc += w[c * k + j] * x[t + j];
    y[c * (len - k + 1) + t] = acc > 0.f ? acc : 0.f;
}
"#;

pub struct Conv1d {
    pub in_len: usize,
    pub kernel_size: usize,
    pub out_channels: usize,
    weights: DeviceBuffer<f32>,
    bias: DeviceBuffer<f32>,
}

pub struct ForwardCtx {
    stream: Stream,
    conv: Kernel,
    input_staging: PinnedBuffer<f32>,
    pub check_nan: bool,
}

impl Conv1d {
    pub fn load(ctx: &Context, stream: &Stream, w: &PinnedBuffer<f32>, b: &PinnedBuffer<f32>, in_len: usize, k: usize) -> Result<Self> {
        let mut weights = ctx.alloc::<f32>(w.len())?;
        let mut bias = ctx.alloc::<f32>(b.len())?;
        unsafe {
            stream.copy_htod_async(&mut weights, w)?;
            stream.copy_htod_async(&mut bias, b)?;
        }
        stream.synchronize()?;
        Ok(Self { in_len, kernel_size: k, out_channels: b.len(), weights, bias })
    }

    fn out_len(&self) -> usize {
        self.in_len - self.kernel_size + 1
    }
}

impl ForwardCtx {
    pub fn new(ctx: &Context, max_in: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            conv: ctx.load_cuda(CONV_SRC)?.function("conv1d_relu")?,
            input_staging: ctx.alloc_pinned(max_in)?,
            check_nan: true,
        })
    }

    pub fn forward(&mut self, ctx: &Context, layer: &Conv1d, x: &[f32]) -> Result<Vec<f32>> {
        self.input_staging[..x.len()].copy_from_slice(x);
        let mut d_x = ctx.alloc::<f32>(self.input_staging.len())?;
        unsafe { self.stream.copy_htod_async(&mut d_x, &self.input_staging)? };
        let mut d_y = ctx.alloc::<f32>(layer.out_len() * layer.out_channels)?;
        let (len, k, oc) = (layer.in_len as u32, layer.kernel_size as u32, layer.out_channels as u32);
        let cfg = LaunchConfig { grid: ((layer.out_len() as u32).div_ceil(256), oc, 1), block: (256, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.stream.launch(&self.conv, cfg, &[&d_x, &layer.weights, &layer.bias, &d_y, &len, &k, &oc])? };
        self.stream.synchronize()?;

        if self.check_nan {
            let first = unsafe { *(d_y.device_ptr().as_raw() as *const f32) }; // EXPECT: host_deref_device_ptr
            if first.is_nan() {
                eprintln!("conv1d: NaN in first activation");
            }
        }

        let mut y = vec![0.0f32; d_y.len()];
        unsafe { self.stream.copy_dtoh_async(&mut y, &d_y)? }; // EXPECT: pageable_async_copy
        self.stream.synchronize()?;
        let _ = &mut d_y;
        Ok(y)
    }
}
