//! case: zero-copy hand-off between a video decode stream and an inference stream through two VMM aliases of one physical frame pool; the decode stream records an event after writing through its alias and the inference stream waits on it before reading through the other alias
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const HANDOFF_SRC: &str = r#"
extern "C" __global__ void unpack_bitstream(const unsigned char* packets, unsigned char* frame, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) frame[i] = packets[i] ^ 0x80;
}
extern "C" __global__ void normalize_nchw(const unsigned char* frame, float* tensor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tensor[i] = (frame[i] - 127.5f) / 127.5f;
}
"#;

enum Stage {
    Empty,
    Decoded(Event),
}

pub struct FrameHandoff {
    decode: Stream,
    infer: Stream,
    unpack: Kernel,
    normalize: Kernel,
    decoder_view: Mapping,
    infer_view: Mapping,
    _pool: PhysicalAllocation,
    stage: Stage,
    frame_bytes: usize,
    ctx: Context,
}

impl FrameHandoff {
    pub fn new(ctx: Context, frame_bytes: usize) -> Result<Self> {
        let bytes = frame_bytes.next_multiple_of(ctx.vmm_granularity()?);
        let pool = PhysicalAllocation::new(&ctx, bytes)?;
        let decoder_view = VirtualRange::reserve(&ctx, bytes)?.map(&pool, 0)?;
        let infer_view = VirtualRange::reserve(&ctx, bytes)?.map(&pool, 0)?;
        let module = ctx.load_cuda(HANDOFF_SRC)?;
        Ok(FrameHandoff {
            decode: ctx.new_stream()?,
            infer: ctx.new_stream()?,
            unpack: module.function("unpack_bitstream")?,
            normalize: module.function("normalize_nchw")?,
            decoder_view,
            infer_view,
            _pool: pool,
            stage: Stage::Empty,
            frame_bytes,
            ctx,
        })
    }

    pub fn decode(&mut self, packets: &DeviceBuffer<u8>) -> Result<()> {
        let n = self.frame_bytes as i32;
        if let Stage::Decoded(prev) = std::mem::replace(&mut self.stage, Stage::Empty) {
            // the previous frame must have been consumed before we overwrite it
            self.decode.wait_event(&prev)?;
        }
        unsafe {
            self.decode.launch(&self.unpack, LaunchConfig::for_num_elems(n as u32), &[packets, &self.decoder_view, &n])?;
        }
        let done = self.ctx.new_event()?;
        self.decode.record_event(&done)?;
        self.stage = Stage::Decoded(done);
        Ok(())
    }

    pub fn infer_input(&mut self, tensor: &mut DeviceBuffer<f32>) -> Result<bool> {
        let Stage::Decoded(decoded) = &self.stage else { return Ok(false) };
        self.infer.wait_event(decoded)?;
        let n = self.frame_bytes as i32;
        unsafe {
            self.infer.launch(&self.normalize, LaunchConfig::for_num_elems(n as u32), &[&self.infer_view, &*tensor, &n])?;
        }
        let consumed = self.ctx.new_event()?;
        self.infer.record_event(&consumed)?;
        self.stage = Stage::Decoded(consumed);
        Ok(true)
    }
}
