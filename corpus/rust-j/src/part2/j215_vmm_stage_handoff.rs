//! case: GPU memory manager hands a staging region from a packer stream to a consumer stream through two runtime-layer VMM mappings of one `PhysicalAllocation`; the consumer kernel reads through its alias with no event ordering it after the packer's writes through the other alias
//! expect: unfenced_vmm_alias=1

use cuda_lint_runtime::{
    Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream, VirtualRange,
};

const STAGE_SRC: &str = r#"
extern "C" __global__ void pack_records(const unsigned* src, unsigned* stage, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) stage[i] = src[i] ^ 0x5bd1e995u;
}
extern "C" __global__ void consume_records(const unsigned* stage, unsigned* hist, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[stage[i] & 255u], 1u);
}
"#;

pub struct StagingRegion {
    _physical: PhysicalAllocation,
    producer_view: Mapping,
    consumer_view: Mapping,
}

impl StagingRegion {
    pub fn new(ctx: &Context, bytes: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let size = bytes.div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, size)?;
        let producer_view = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        let consumer_view = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        debug_assert!(producer_view.aliases(&consumer_view));
        Ok(Self { _physical: physical, producer_view, consumer_view })
    }
}

pub struct Pipeline {
    ctx: Context,
    pack_stream: Stream,
    consume_stream: Stream,
    pack: Kernel,
    consume: Kernel,
    region: StagingRegion,
}

impl Pipeline {
    pub fn new(ctx: &Context, max_records: usize) -> Result<Self> {
        let module = ctx.load_cuda(STAGE_SRC)?;
        Ok(Self {
            ctx: ctx.clone(),
            pack_stream: ctx.new_stream()?,
            consume_stream: ctx.new_stream()?,
            pack: module.function("pack_records")?,
            consume: module.function("consume_records")?,
            region: StagingRegion::new(ctx, max_records * 4)?,
        })
    }

    pub fn histogram(&self, records: &DeviceBuffer<u32>, out: &mut PinnedBuffer<u32>) -> Result<()> {
        let n = records.len() as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        let mut hist = self.ctx.alloc_zeroed::<u32>(256)?;
        unsafe { self.pack_stream.launch(&self.pack, cfg, &[records, &self.region.producer_view, &n])? };
        unsafe { self.consume_stream.launch(&self.consume, cfg, &[&self.region.consumer_view, &hist, &n])? }; // EXPECT: unfenced_vmm_alias
        self.consume_stream.copy_dtoh(out, &hist)?;
        self.pack_stream.synchronize()?;
        let _ = &mut hist;
        Ok(())
    }
}
