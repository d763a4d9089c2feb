//! case: a log analyzer builds a host-side histogram in a runtime-layer ManagedBuffer (attached globally) while the GPU tokenizer kernel works on other memory
//! expect: managed_concurrent_access=1
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const SRC: &str = r#"
extern "C" __global__ void tokenize(const unsigned char* text, unsigned* marks, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) marks[i] = (text[i] == ' ' || text[i] == '\n') ? 1u : 0u;
}
"#;

pub struct Analyzer {
    stream: Stream,
    tokenize: Kernel,
    text: DeviceBuffer<u8>,
    marks: DeviceBuffer<u32>,
    /// per-severity counts, later consumed by a GPU report kernel
    severity: ManagedBuffer<u32>,
}

impl Analyzer {
    pub fn new(ctx: &Context, bytes: usize) -> Result<Self> {
        let module = ctx.load_cuda(SRC)?;
        Ok(Self {
            stream: ctx.new_stream()?,
            tokenize: module.function("tokenize")?,
            text: ctx.alloc_zeroed(bytes)?,
            marks: ctx.alloc_zeroed(bytes)?,
            severity: ctx.alloc_managed(8)?,
        })
    }

    pub fn chunk(&mut self, levels: &[u8]) -> Result<()> {
        let n = self.text.len() as u32;
        unsafe { self.stream.launch(&self.tokenize, LaunchConfig::for_num_elems(n), &[&self.text, &self.marks, &n])? };
        // count severities on the CPU while the tokenizer runs
        levels.iter().for_each(|&l| self.severity[(l & 7) as usize] += 1); // EXPECT: managed_concurrent_access
        self.stream.synchronize()
    }
}

pub fn analyze(ctx: &Context, chunks: &[Vec<u8>]) -> Result<[u32; 8]> {
    let mut a = Analyzer::new(ctx, 1 << 24)?;
    for c in chunks {
        a.chunk(c)?;
    }
    let mut out = [0u32; 8];
    out.copy_from_slice(&a.severity);
    Ok(out)
}
