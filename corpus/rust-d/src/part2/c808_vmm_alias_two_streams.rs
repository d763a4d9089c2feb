//! case: a zero-copy handoff between a decoder stream and an inference stream: the decoder writes frames through its own mapping of a shared physical allocation, and the inference stream's kernel reads them through a second mapping of the same allocation, with no event between the two streams
//! expect: unfenced_vmm_alias=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const SRC: &str = r#"
extern "C" __global__ void decode_rle(const unsigned char* packed, unsigned char* frame, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) frame[i] = packed[i / 2] >> ((i & 1) * 4) & 0xF;
}
extern "C" __global__ void normalize(const unsigned char* frame, float* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (float)frame[i] / 15.0f;
}
"#;

pub struct Handoff {
    decoder: Stream,
    infer: Stream,
    decode: Kernel,
    normalize: Kernel,
    _shared: PhysicalAllocation,
    producer_view: Mapping,
    consumer_view: Mapping,
}

impl Handoff {
    pub fn new(ctx: &Context, frame_bytes: usize) -> Result<Handoff> {
        let gran = ctx.vmm_granularity()?;
        let size = frame_bytes.div_ceil(gran) * gran;
        let shared = PhysicalAllocation::new(ctx, size)?;
        let producer_view = VirtualRange::reserve(ctx, size)?.map(&shared, 0)?;
        let consumer_view = VirtualRange::reserve(ctx, size)?.map(&shared, 0)?;
        let module = ctx.load_cuda(SRC)?;
        Ok(Handoff {
            decoder: ctx.new_stream()?,
            infer: ctx.new_stream()?,
            decode: module.function("decode_rle")?,
            normalize: module.function("normalize")?,
            _shared: shared,
            producer_view,
            consumer_view,
        })
    }

    pub fn frame(&self, packed: &DeviceBuffer<u8>, out: &mut DeviceBuffer<f32>) -> Result<()> {
        let n = out.len() as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        unsafe {
            self.decoder.launch(&self.decode, cfg, &[packed, &self.producer_view, &n])?;
            // the decoder stream owns the frame until here; nothing tells `infer` to wait
            self.infer.launch(&self.normalize, cfg, &[&self.consumer_view, &*out, &n])?; // EXPECT: unfenced_vmm_alias
        }
        self.infer.synchronize()?;
        self.decoder.synchronize()
    }
}
