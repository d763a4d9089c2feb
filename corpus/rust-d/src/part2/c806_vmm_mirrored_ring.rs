//! case: a log-record ring maps one physical allocation into two virtual ranges (a writer view and a reader view) with the runtime layer; one kernel appends records through the writer view and, after `__syncthreads`, reads the newest ones back through the reader view without `fence.proxy.alias`
//! expect: unfenced_vmm_alias=1

use cuda_lint_runtime::{Context, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const RING_SRC: &str = r#"
extern "C" __global__ void append_and_peek(float* ring_w, const float* ring_r, float* peek,
                                           unsigned int head, unsigned int cap, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) ring_w[(head + i) % cap] = 0.5f * (float)(head + i);
    __syncthreads();
    // the newest record of this block, seen through the other mapping
    if (i < n) {
        unsigned int last = blockIdx.x * blockDim.x + blockDim.x - 1;
        if (last >= n) last = n - 1;
        peek[i] = ring_r[(head + last) % cap];
    }
}
"#;

pub struct RecordRing {
    phys: PhysicalAllocation,
    writer: Mapping,
    reader: Mapping,
    head: u32,
    cap: u32,
    append: Kernel,
}

impl RecordRing {
    pub fn new(ctx: &Context, min_bytes: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let size = min_bytes.div_ceil(gran) * gran;
        let phys = PhysicalAllocation::new(ctx, size)?;
        let writer = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
        let reader = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
        debug_assert!(writer.aliases(&reader));
        let append = ctx.load_cuda(RING_SRC)?.function("append_and_peek")?;
        Ok(Self { cap: (size / 4) as u32, phys, writer, reader, head: 0, append })
    }

    /// Appends `n` records and leaves, in `peek`, the newest record of each block.
    pub fn append(&mut self, stream: &Stream, peek: &mut cuda_lint_runtime::DeviceBuffer<f32>) -> Result<()> {
        let n = peek.len() as u32;
        let head = self.head;
        let cfg = LaunchConfig::for_num_elems(n);
        unsafe {
            stream.launch(&self.append, cfg, &[&self.writer, &self.reader, &*peek, &head, &self.cap, &n])?; // EXPECT: unfenced_vmm_alias
        }
        self.head = (self.head + n) % self.cap;
        Ok(())
    }
}

pub fn run(ctx: &Context) -> Result<()> {
    let stream = ctx.new_stream()?;
    let mut ring = RecordRing::new(ctx, 1 << 20)?;
    let mut peek = ctx.alloc_zeroed::<f32>(4096)?;
    for _ in 0..8 {
        ring.append(&stream, &mut peek)?;
    }
    stream.synchronize()
}
