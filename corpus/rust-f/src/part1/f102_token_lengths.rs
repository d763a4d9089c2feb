//! case: a word-length histogram service on a stream of its own (`new_stream`: cudarc tracks events, so `memcpy_dtoh` into the pinned readback records its event and `as_slice` waits for it); the readback is cached pinned memory, the write-combined staging is only written
//! expect: none

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const LENGTHS_SRC: &str = r#"
extern "C" __global__ void token_lengths(const unsigned char* text, unsigned int n, unsigned int* bins, unsigned int nbins)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    bool starts = text[i] != ' ' && (i == 0 || text[i - 1] == ' ');
    if (!starts) return;
    unsigned int len = 0;
    while (i + len < n && text[i + len] != ' ') ++len;
    atomicAdd(&bins[len < nbins ? len : nbins - 1], 1u);
}
"#;

const MAX_LEN: usize = 32;

pub struct TokenStats {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    staging: PinnedHostSlice<u8>,
    text: CudaSlice<u8>,
    bins: CudaSlice<u32>,
    readback: PinnedHostSlice<u32>,
}

impl TokenStats {
    pub fn new(capacity: usize) -> Result<Self, Box<dyn Error>> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(LENGTHS_SRC)?)?.load_function("token_lengths")?;
        Ok(Self {
            staging: unsafe { ctx.alloc_pinned::<u8>(capacity)? },
            readback: unsafe { ctx.alloc_pinned_with_flags::<u32>(MAX_LEN, 0)? },
            text: stream.alloc_zeros::<u8>(capacity)?,
            bins: stream.alloc_zeros::<u32>(MAX_LEN)?,
            stream,
            kernel,
        })
    }

    /// Histogram of token lengths of `doc` (truncated to the capacity).
    pub fn lengths(&mut self, doc: &str) -> Result<[u32; MAX_LEN], Box<dyn Error>> {
        let bytes = doc.as_bytes();
        let n = bytes.len().min(self.staging.len());
        {
            let staging = self.staging.as_mut_slice()?;
            staging[..n].copy_from_slice(&bytes[..n]);
            staging[n..].fill(b' ');
        }
        self.stream.memcpy_htod(&self.staging, &mut self.text)?;
        self.stream.memset_zeros(&mut self.bins)?;

        let (n32, nbins) = (n as u32, MAX_LEN as u32);
        let cfg = LaunchConfig::for_num_elems(n32.max(1));
        unsafe {
            self.stream
                .launch_builder(&self.kernel)
                .arg(&self.text)
                .arg(&n32)
                .arg(&mut self.bins)
                .arg(&nbins)
                .launch(cfg)?
        };
        self.stream.memcpy_dtoh(&self.bins, &mut self.readback)?;

        let mut out = [0u32; MAX_LEN];
        out.copy_from_slice(self.readback.as_slice()?);
        Ok(out)
    }
}

pub fn run() -> Result<(), Box<dyn Error>> {
    let mut stats = TokenStats::new(1 << 20)?;
    for doc in ["the quick brown fox", "jumps over the lazy dog", "a b c dd eee"] {
        let hist = stats.lengths(doc)?;
        let words: u32 = hist.iter().sum();
        println!("{doc:?}: {words} words, longest bucket {:?}", hist.iter().rposition(|&c| c > 0));
    }
    Ok(())
}
