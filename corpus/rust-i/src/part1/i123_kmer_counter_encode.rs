//! case: GPU k-mer counter: `encode_reads` packs FASTQ sequences into a fresh Vec<u8> (2 bits per base) in a helper, and the counter uploads that Vec with cudarc's memcpy_htod on a non-blocking stream (pageable host memory); counts come back through flags-0 pinned memory
//! expect: pageable_async_copy=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const KMER_SRC: &str = r#"
extern "C" __global__ void count_kmers(const unsigned char* packed, unsigned n_bases, unsigned k, unsigned* table, unsigned table_bits) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + k > n_bases) return;
    unsigned long long code = 0;
    for (unsigned j = 0; j < k; ++j) {
        unsigned b = (packed[(i + j) >> 2] >> (((i + j) & 3) * 2)) & 3;
        code = (code << 2) | b;
    }
    unsigned h = (unsigned)((code * 0x9E3779B97F4A7C15ull) >> (64 - table_bits));
    atomicAdd(&table[h], 1u);
}
"#;

pub struct FastqRecord {
    pub id: String,
    pub seq: String,
}

fn base_code(b: u8) -> u8 {
    match b {
        b'A' | b'a' => 0,
        b'C' | b'c' => 1,
        b'G' | b'g' => 2,
        _ => 3,
    }
}

/// Concatenates the reads, 4 bases per byte.
fn encode_reads(reads: &[FastqRecord]) -> (Vec<u8>, usize) {
    let n_bases: usize = reads.iter().map(|r| r.seq.len()).sum();
    let mut packed = vec![0u8; n_bases.div_ceil(4)];
    for (i, b) in reads.iter().flat_map(|r| r.seq.bytes()).enumerate() {
        packed[i / 4] |= base_code(b) << ((i % 4) * 2);
    }
    (packed, n_bases)
}

pub struct KmerCounter {
    stream: Arc<CudaStream>,
    count: CudaFunction,
    k: u32,
    table_bits: u32,
    table_host: PinnedHostSlice<u32>,
}

impl KmerCounter {
    pub fn new(ctx: &Arc<CudaContext>, k: u32, table_bits: u32) -> Result<Self, Box<dyn std::error::Error>> {
        Ok(Self {
            stream: ctx.new_stream()?,
            count: ctx.load_module(compile_ptx(KMER_SRC)?)?.load_function("count_kmers")?,
            k,
            table_bits,
            table_host: unsafe { ctx.alloc_pinned_with_flags::<u32>(1 << table_bits, 0)? },
        })
    }

    pub fn count(&mut self, reads: &[FastqRecord]) -> Result<Vec<(usize, u32)>, Box<dyn std::error::Error>> {
        let (packed, n_bases) = encode_reads(reads);
        let mut d_packed = self.stream.alloc_zeros::<u8>(packed.len())?;
        self.stream.memcpy_htod(&packed, &mut d_packed)?; // EXPECT: pageable_async_copy
        let mut d_table = self.stream.alloc_zeros::<u32>(1 << self.table_bits)?;
        let nb = n_bases as u32;
        unsafe {
            self.stream
                .launch_builder(&self.count)
                .arg(&d_packed)
                .arg(&nb)
                .arg(&self.k)
                .arg(&mut d_table)
                .arg(&self.table_bits)
                .launch(LaunchConfig::for_num_elems(nb))?;
        }
        self.stream.memcpy_dtoh(&d_table, &mut self.table_host)?;
        self.stream.synchronize()?;
        let mut top: Vec<(usize, u32)> = self.table_host.as_slice()?.iter().copied().enumerate().filter(|&(_, c)| c > 1).collect();
        top.sort_by(|a, b| b.1.cmp(&a.1));
        top.truncate(100);
        Ok(top)
    }
}
