//! case: a token-statistics pass counts token ids into managed memory with a kernel; the stream is synchronized only when verbose logging is on, so on the default path the host reads the counts while the kernel may still be writing them
//! expect: missing_sync=1

use std::time::Instant;

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, ManagedBuffer, Result, Stream};

const COUNT_SRC: &str = r#"
extern "C" __global__ void count_tokens(const unsigned int* tokens, unsigned int* counts, unsigned int n, unsigned int vocab) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && tokens[i] < vocab) atomicAdd(&counts[tokens[i]], 1u);
}
"#;

pub struct StatsConfig {
    pub vocab: usize,
    pub top_k: usize,
    pub verbose: bool,
}

pub fn top_tokens(ctx: &Context, stream: &Stream, tokens: &DeviceBuffer<u32>, cfg: &StatsConfig) -> Result<Vec<(u32, u32)>> {
    let kernel = ctx.load_cuda(COUNT_SRC)?.function("count_tokens")?;
    let counts: ManagedBuffer<u32> = ctx.alloc_managed(cfg.vocab)?;
    let n = tokens.len() as u32;
    let vocab = cfg.vocab as u32;
    let started = Instant::now();
    unsafe { stream.launch(&kernel, LaunchConfig::for_num_elems(n), &[tokens, &counts, &n, &vocab])? };

    if cfg.verbose {
        stream.synchronize()?;
        eprintln!("count_tokens: {} tokens in {:?}", n, started.elapsed());
    }

    let mut ranked: Vec<(u32, u32)> = counts.iter().enumerate().filter(|&(_, &c)| c > 0).map(|(id, &c)| (id as u32, c)).collect(); // EXPECT: missing_sync
    ranked.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.truncate(cfg.top_k);
    Ok(ranked)
}
