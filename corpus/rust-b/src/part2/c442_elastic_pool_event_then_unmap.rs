//! case: an elastic pool built on the runtime layer; shrink() launches the compaction, waits on an event recorded after it, then unmaps the chunk (Mapping::unmap) and drops the range
//! expect: none
use cuda_lint_runtime::{Context, Event, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const COMPACT_SRC: &str = r#"
extern "C" __global__ void compact_into(const unsigned* src, unsigned* dst, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && src[i] != 0u) dst[i] = src[i];
}
"#;

pub struct RuntimePool {
    stream: Stream,
    done: Event,
    compact: Kernel,
    chunks: Vec<Mapping>,
    chunk_bytes: usize,
}

impl RuntimePool {
    pub fn new(ctx: &Context, chunk_bytes: usize, count: usize) -> Result<Self> {
        let chunks = (0..count)
            .map(|_| {
                let phys = PhysicalAllocation::new(ctx, chunk_bytes)?;
                VirtualRange::reserve(ctx, chunk_bytes)?.map(&phys, 0)
            })
            .collect::<Result<Vec<_>>>()?;
        let module = ctx.load_cuda(COMPACT_SRC)?;
        Ok(Self { stream: ctx.new_stream()?, done: ctx.new_event()?, compact: module.function("compact_into")?, chunks, chunk_bytes })
    }

    pub fn shrink(&mut self) -> Result<Option<VirtualRange>> {
        if self.chunks.len() < 2 {
            return Ok(None);
        }
        let last = self.chunks.pop().expect("checked above");
        let n = (self.chunk_bytes / 4) as u32;
        unsafe { self.stream.launch(&self.compact, LaunchConfig::for_num_elems(n), &[&last, &self.chunks[0], &n])? };
        self.stream.record_event(&self.done)?;
        self.done.synchronize()?;
        // nothing uses `last` any more; the range is kept for a later grow
        last.unmap().map(Some)
    }
}

pub fn trim(ctx: &Context) -> Result<usize> {
    let gran = ctx.vmm_granularity()?;
    let mut pool = RuntimePool::new(ctx, gran * 4, 4)?;
    let mut spare = Vec::new();
    while let Some(range) = pool.shrink()? {
        spare.push(range);
    }
    Ok(spare.len())
}
