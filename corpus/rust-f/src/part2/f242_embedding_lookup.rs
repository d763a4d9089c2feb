//! case: tokenizer-to-embedding step on the runtime layer: token ids are uploaded from a Vec with copy_htod_async, and the trace hook prints the first outputs by turning the output DeviceBuffer's raw device pointer into a host slice
//! expect: pageable_async_copy=1, host_deref_device_ptr=1
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const LOOKUP_SRC: &str = r#"
extern "C" __global__ void lookup(const float* table, const unsigned int* ids, float* out, unsigned int dim, unsigned int count) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= dim * count) return;
    unsigned int t = i / dim, d = i % dim;
    out[i] = table[ids[t] * dim + d];
}
"#;

pub struct Embedder {
    stream: Stream,
    lookup: Kernel,
    table: DeviceBuffer<f32>,
    dim: usize,
    trace: bool,
}

fn tokenize(text: &str, vocab: u32) -> Vec<u32> {
    text.split_whitespace()
        .map(|w| w.bytes().fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619)) % vocab)
        .collect()
}

impl Embedder {
    pub fn new(ctx: &Context, table: DeviceBuffer<f32>, dim: usize, trace: bool) -> Result<Embedder> {
        Ok(Embedder { stream: ctx.new_stream()?, lookup: ctx.load_cuda(LOOKUP_SRC)?.function("lookup")?, table, dim, trace })
    }

    pub fn embed(&self, ctx: &Context, text: &str, out: &mut PinnedBuffer<f32>) -> Result<usize> {
        let vocab = (self.table.len() / self.dim) as u32;
        let ids = tokenize(text, vocab);
        let count = ids.len();
        let mut d_ids = ctx.alloc::<u32>(count)?;
        let d_out = ctx.alloc::<f32>(count * self.dim)?;
        let (dim, cnt) = (self.dim as u32, count as u32);
        unsafe {
            self.stream.copy_htod_async(&mut d_ids, &ids)?; // EXPECT: pageable_async_copy
            self.stream.launch(&self.lookup, LaunchConfig::for_num_elems(dim * cnt), &[&self.table, &d_ids, &d_out, &dim, &cnt])?;
        }
        self.stream.synchronize()?;
        if self.trace {
            let p = d_out.device_ptr().as_raw() as *const f32;
            let first = unsafe { std::slice::from_raw_parts(p, self.dim.min(4)) }; // EXPECT: host_deref_device_ptr
            eprintln!("embed[{text:.16}] -> {first:?}");
        }
        unsafe { self.stream.copy_dtoh_async(&mut out[..count * self.dim], &d_out)? };
        self.stream.synchronize()?;
        Ok(count)
    }
}
