//! case: genomics k-mer counter; the encoded reads go up with `clone_htod` from a Vec and the 4^k count table comes back with `clone_dtoh` into a Vec, both large copies through pageable memory (the results are right: the download has finished when it returns)
//! expect: pageable_async_copy=2

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const KMER_SRC: &str = r#"
extern "C" __global__ void count_kmers(const unsigned char* bases, unsigned long long n,
                                       int k, unsigned int* counts) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i + k > n) return;
    unsigned int code = 0;
    for (int j = 0; j < k; ++j) {
        unsigned char b = bases[i + j];
        if (b > 3) return;              // N or read separator: no k-mer here
        code = (code << 2) | b;
    }
    atomicAdd(&counts[code], 1u);
}
"#;

#[derive(Debug)]
pub enum CountError {
    Driver(DriverError),
    Compile(String),
    BadK(usize),
}

impl From<DriverError> for CountError {
    fn from(e: DriverError) -> Self {
        CountError::Driver(e)
    }
}

pub struct KmerCounter {
    stream: Arc<CudaStream>,
    func: CudaFunction,
    k: usize,
}

impl KmerCounter {
    pub fn new(k: usize) -> Result<Self, CountError> {
        if !(1..=14).contains(&k) {
            return Err(CountError::BadK(k));
        }
        let ctx = CudaContext::new(0)?;
        let ptx = compile_ptx(KMER_SRC).map_err(|e| CountError::Compile(e.to_string()))?;
        let func = ctx.load_module(ptx)?.load_function("count_kmers")?;
        Ok(KmerCounter { stream: ctx.default_stream(), func, k })
    }

    fn encode(read: &[u8]) -> impl Iterator<Item = u8> + '_ {
        read.iter()
            .map(|b| match b {
                b'A' | b'a' => 0,
                b'C' | b'c' => 1,
                b'G' | b'g' => 2,
                b'T' | b't' => 3,
                _ => 4,
            })
            .chain(std::iter::once(4u8))
    }

    pub fn count(&self, reads: &[Vec<u8>]) -> Result<Vec<u32>, CountError> {
        let encoded: Vec<u8> = reads.iter().flat_map(|r| Self::encode(r)).collect();
        let n = encoded.len() as u64;
        let k = self.k as i32;
        let bases = self.stream.clone_htod(&encoded)?; // EXPECT: pageable_async_copy
        let mut counts = self.stream.alloc_zeros::<u32>(1usize << (2 * self.k))?;
        let cfg = LaunchConfig::for_num_elems(encoded.len() as u32);
        let mut launch = self.stream.launch_builder(&self.func);
        launch.arg(&bases).arg(&n).arg(&k).arg(&mut counts);
        unsafe { launch.launch(cfg) }?;
        let table = self.stream.clone_dtoh(&counts)?; // EXPECT: pageable_async_copy
        Ok(table)
    }

    pub fn most_frequent(&self, table: &[u32], top: usize) -> Vec<(String, u32)> {
        let mut ranked: Vec<(usize, u32)> = table.iter().copied().enumerate().filter(|&(_, c)| c > 0).collect();
        ranked.sort_unstable_by(|a, b| b.1.cmp(&a.1));
        ranked
            .into_iter()
            .take(top)
            .map(|(code, c)| {
                let kmer: String = (0..self.k)
                    .rev()
                    .map(|j| b"ACGT"[(code >> (2 * j)) & 3] as char)
                    .collect();
                (kmer, c)
            })
            .collect()
    }
}
