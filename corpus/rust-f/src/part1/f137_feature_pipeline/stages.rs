use cuda_lint_runtime::{Context, Event, Kernel, PinnedBuffer, Result, Stream};

const SQUARE_SRC: &str = r#"
extern "C" __global__ void square(const float* in, float* out, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
}
"#;

/// Host-to-device stage: pinned staging and the event recorded after each upload.
pub struct Uploader {
    pub stream: Stream,
    pub staging: PinnedBuffer<f32>,
    pub uploaded: Event,
}

impl Uploader {
    pub fn new(ctx: &Context, batch: usize) -> Result<Self> {
        Ok(Self { stream: ctx.new_stream()?, staging: ctx.alloc_pinned::<f32>(batch)?, uploaded: ctx.new_event()? })
    }
}

/// Kernel and readback stage.
pub struct Compute {
    pub stream: Stream,
    pub kernel: Kernel,
    pub result: PinnedBuffer<f32>,
    /// Recorded after the kernel: the device input may be overwritten once it completes.
    pub consumed: Event,
    /// Recorded after the readback.
    pub done: Event,
}

impl Compute {
    pub fn new(ctx: &Context, batch: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(SQUARE_SRC)?.function("square")?,
            result: ctx.alloc_pinned::<f32>(batch)?,
            consumed: ctx.new_event()?,
            done: ctx.new_event()?,
        })
    }
}
