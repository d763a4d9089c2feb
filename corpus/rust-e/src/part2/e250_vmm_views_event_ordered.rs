//! case: near-miss of the two-stream VMM alias race: the writer stream fills the staging view of a shared physical allocation and records an event; the reader stream waits on that event before its kernel reads through the other view
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const PACK_SRC: &str = r#"
extern "C" __global__ void pack_bf16(const float* src, unsigned short* staged, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int bits = __float_as_uint(src[i]);
        staged[i] = (unsigned short)((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
    }
}
extern "C" __global__ void checksum_u16(const unsigned short* staged, unsigned long long* sum, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(sum, (unsigned long long)staged[i]);
}
"#;

pub struct SendBuffer {
    _phys: PhysicalAllocation,
    pack_view: Mapping,
    wire_view: Mapping,
    writer: Stream,
    reader: Stream,
    packed: Event,
    pack: Kernel,
    checksum: Kernel,
}

impl SendBuffer {
    pub fn new(ctx: &Context, elems: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (elems * 2).div_ceil(gran) * gran;
        let phys = PhysicalAllocation::new(ctx, bytes)?;
        let pack_view = VirtualRange::reserve(ctx, bytes)?.map(&phys, 0)?;
        let wire_view = VirtualRange::reserve(ctx, bytes)?.map(&phys, 0)?;
        let module = ctx.load_cuda(PACK_SRC)?;
        Ok(Self {
            _phys: phys,
            pack_view,
            wire_view,
            writer: ctx.new_stream()?,
            reader: ctx.new_stream()?,
            packed: ctx.new_event()?,
            pack: module.function("pack_bf16")?,
            checksum: module.function("checksum_u16")?,
        })
    }

    pub fn stage(&self, src: &DeviceBuffer<f32>, sum: &DeviceBuffer<u64>) -> Result<()> {
        let n = src.len() as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        unsafe { self.writer.launch(&self.pack, cfg, &[src, &self.pack_view, &n])? };
        self.writer.record_event(&self.packed)?;
        self.reader.wait_event(&self.packed)?;
        unsafe { self.reader.launch(&self.checksum, cfg, &[&self.wire_view, sum, &n])? };
        self.reader.synchronize()
    }
}
