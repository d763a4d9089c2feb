//! case: k-mer counting with managed memory (cuda-lint-runtime `ManagedBuffer`); while the counting kernel runs, the host sums the read lengths from another managed buffer the kernel does not use: on devices without concurrent managed access the GPU owns all managed memory while any kernel runs, so that host read faults; the histogram itself is read after synchronize
//! expect: managed_concurrent_access=1

use cuda_lint_runtime::{Context, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const KMER_SRC: &str = r#"
__device__ int base_code(unsigned char b) {
    switch (b) { case 'A': return 0; case 'C': return 1; case 'G': return 2; case 'T': return 3; default: return -1; }
}
extern "C" __global__ void count_kmers(const unsigned char* seq, unsigned int* hist, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + k > n) return;
    unsigned int code = 0;
    for (int j = 0; j < k; ++j) {
        int c = base_code(seq[i + j]);
        if (c < 0) return;
        code = (code << 2) | c;
    }
    atomicAdd(&hist[code], 1u);
}
"#;

pub struct KmerCounter {
    stream: Stream,
    kernel: Kernel,
    k: usize,
}

pub struct KmerReport {
    pub total_bases: u64,
    pub distinct: usize,
    pub most_common: (u32, u32),
}

impl KmerCounter {
    pub fn new(ctx: &Context, k: usize) -> Result<Self> {
        Ok(Self { stream: ctx.new_stream()?, kernel: ctx.load_cuda(KMER_SRC)?.function("count_kmers")?, k })
    }

    pub fn count(&self, reads: &[&[u8]]) -> Result<KmerReport> {
        let ctx = self.stream.context();
        let total: usize = reads.iter().map(|r| r.len() + 1).sum();
        let mut seq: ManagedBuffer<u8> = ctx.alloc_managed(total)?;
        let mut lengths: ManagedBuffer<u32> = ctx.alloc_managed(reads.len())?;
        let hist: ManagedBuffer<u32> = ctx.alloc_managed(1usize << (2 * self.k))?;

        // Concatenate reads separated by 'N' so no k-mer spans two reads.
        let mut offset = 0;
        for (i, read) in reads.iter().enumerate() {
            seq[offset..offset + read.len()].copy_from_slice(read);
            seq[offset + read.len()] = b'N';
            lengths[i] = read.len() as u32;
            offset += read.len() + 1;
        }

        let (n, k) = (total as i32, self.k as i32);
        unsafe {
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(total as u32), &[&seq, &hist, &n, &k])?;
        }

        // CPU-side statistics while the GPU counts.
        let total_bases: u64 = lengths.iter().map(|&l| l as u64).sum(); // EXPECT: managed_concurrent_access

        self.stream.synchronize()?;
        let distinct = hist.iter().filter(|&&c| c > 0).count();
        let most_common = hist
            .iter()
            .enumerate()
            .max_by_key(|&(_, &c)| c)
            .map(|(code, &c)| (code as u32, c))
            .unwrap_or((0, 0));
        Ok(KmerReport { total_bases, distinct, most_common })
    }
}
