//! case: inference server hot-swapping a layer's weights on the runtime layer: request activations go through a PinnedBuffer, but the new weight matrix, decoded from the model file into a Box<[f32]>, is uploaded with Stream::copy_htod_async straight from that boxed slice
//! expect: pageable_async_copy=1

use std::sync::OnceLock;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const GEMV_SRC: &str = r#"
extern "C" __global__ void gemv_bias_gelu(const float* w, const float* x, const float* b, float* y,
                                          unsigned rows, unsigned cols) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = b[r];
    for (unsigned c = 0; c < cols; ++c) acc += w[(size_t)r * cols + c] * x[c];
    y[r] = 0.5f * acc * (1.f + tanhf(0.7978845608f * (acc + 0.044715f * acc * acc * acc)));
}
"#;

static CONTEXT: OnceLock<Context> = OnceLock::new();

fn context() -> Result<&'static Context> {
    if let Some(c) = CONTEXT.get() {
        return Ok(c);
    }
    let c = Context::new(0)?;
    Ok(CONTEXT.get_or_init(|| c))
}

pub struct DenseLayer {
    stream: Stream,
    kernel: Kernel,
    weights: DeviceBuffer<f32>,
    bias: DeviceBuffer<f32>,
    x: DeviceBuffer<f32>,
    y: DeviceBuffer<f32>,
    io: PinnedBuffer<f32>,
    rows: u32,
    cols: u32,
}

impl DenseLayer {
    pub fn new(rows: u32, cols: u32) -> Result<Self> {
        let ctx = context()?;
        let kernel = ctx.load_cuda(GEMV_SRC)?.function("gemv_bias_gelu")?;
        let stream = ctx.new_stream()?;
        let mut weights = ctx.alloc::<f32>(rows as usize * cols as usize)?;
        let mut bias = ctx.alloc::<f32>(rows as usize)?;
        stream.memset_d32_async(&mut weights, 0)?;
        stream.memset_d32_async(&mut bias, 0)?;
        let io = ctx.alloc_pinned::<f32>(rows.max(cols) as usize)?;
        Ok(Self {
            stream, kernel, weights, bias,
            x: ctx.alloc::<f32>(cols as usize)?,
            y: ctx.alloc::<f32>(rows as usize)?,
            io, rows, cols,
        })
    }

    /// Installs new weights decoded from a little-endian f32 blob.
    pub fn swap_weights(&mut self, blob: &[u8]) -> Result<()> {
        let decoded: Box<[f32]> = blob
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(decoded.len(), self.weights.len());
        // Requests already in flight on this stream finish with the old weights first.
        unsafe { self.stream.copy_htod_async(&mut self.weights, &decoded)? }; // EXPECT: pageable_async_copy
        self.stream.synchronize()
    }

    pub fn forward(&mut self, x: &[f32]) -> Result<Vec<f32>> {
        let (rows, cols) = (self.rows as usize, self.cols as usize);
        self.io[..cols].copy_from_slice(&x[..cols]);
        unsafe { self.stream.copy_htod_async(&mut self.x, &self.io[..cols])? };
        unsafe {
            self.stream.launch(
                &self.kernel,
                LaunchConfig::for_num_elems(self.rows),
                &[&self.weights, &self.x, &self.bias, &self.y, &self.rows, &self.cols],
            )?;
            self.stream.copy_dtoh_async(&mut self.io[..rows], &self.y)?;
        }
        self.stream.synchronize()?;
        Ok(self.io[..rows].to_vec())
    }
}
