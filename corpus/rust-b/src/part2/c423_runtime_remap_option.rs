//! case: a resident-texture slot built on the runtime layer; switching textures unmaps the Mapping (Option::take) and maps the range again with VirtualRange::map, which grants access
//! expect: none
use cuda_lint_runtime::{Context, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream, VirtualRange};

pub enum Residency {
    Empty(VirtualRange),
    Resident { mapping: Mapping, texture_id: u32 },
}

pub struct TextureSlot {
    state: Option<Residency>,
    bytes: usize,
}

impl TextureSlot {
    pub fn new(ctx: &Context, bytes: usize) -> Result<Self> {
        Ok(Self { state: Some(Residency::Empty(VirtualRange::reserve(ctx, bytes)?)), bytes })
    }

    fn range(&mut self) -> Result<VirtualRange> {
        match self.state.take().expect("slot state") {
            Residency::Empty(range) => Ok(range),
            // unmap waits for the context's work before cuMemUnmap
            Residency::Resident { mapping, .. } => mapping.unmap(),
        }
    }

    /// Makes `texture_id` resident, uploading `texels` into a fresh physical allocation.
    pub fn make_resident(&mut self, ctx: &Context, stream: &Stream, texture_id: u32, texels: &PinnedBuffer<u32>) -> Result<(), Box<dyn std::error::Error>> {
        if let Some(Residency::Resident { texture_id: cur, .. }) = &self.state {
            if *cur == texture_id {
                return Ok(());
            }
        }
        let range = self.range()?;
        let physical = PhysicalAllocation::new(ctx, self.bytes)?;
        let mut mapping = range.map(&physical, 0)?;
        stream.memset_d32_async(&mut mapping, 0)?;
        let words = texels.len().min(self.bytes / 4);
        let dst = mapping.device_ptr();
        // SAFETY: `texels` is pinned and outlives the synchronize below.
        unsafe {
            cudarc::driver::sys::cuMemcpyHtoDAsync_v2(dst.as_raw(), texels.as_ptr().cast(), words * 4, stream.as_raw()).result()?;
        }
        stream.synchronize()?;
        self.state = Some(Residency::Resident { mapping, texture_id });
        Ok(())
    }
}

pub fn stream_textures(ctx: &Context, order: &[u32]) -> Result<(), Box<dyn std::error::Error>> {
    let gran = ctx.vmm_granularity()?;
    let bytes = (4usize << 20).div_ceil(gran) * gran;
    let stream = ctx.new_stream()?;
    let mut texels = ctx.alloc_pinned::<u32>(bytes / 4)?;
    let mut slot = TextureSlot::new(ctx, bytes)?;
    for &id in order {
        texels.fill(id);
        slot.make_resident(ctx, &stream, id, &texels)?;
    }
    Ok(())
}
