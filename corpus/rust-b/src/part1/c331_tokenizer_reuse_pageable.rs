//! case: a tokenizer front-end reuses its pageable token Vec right after memcpy_htod: legal (the call returns once the data is staged), only slow
//! expect: pageable_async_copy=1
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

pub struct TokenFeeder {
    stream: Arc<CudaStream>,
    d_tokens: CudaSlice<u32>,
    scratch: Vec<u32>,
}

impl TokenFeeder {
    pub fn new(max_tokens: usize) -> Res<Self> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.default_stream();
        let d_tokens = stream.alloc_zeros::<u32>(max_tokens)?;
        Ok(Self { stream, d_tokens, scratch: Vec::with_capacity(max_tokens) })
    }

    fn tokenize_into(text: &str, out: &mut Vec<u32>) {
        out.clear();
        out.extend(text.split_whitespace().map(|w| w.bytes().fold(5381u32, |h, b| h.wrapping_mul(33) ^ b as u32)));
    }

    /// Uploads each prompt in turn through the same scratch Vec.
    pub fn feed(&mut self, prompts: &[&str]) -> Res<usize> {
        let mut total = 0;
        for p in prompts {
            Self::tokenize_into(p, &mut self.scratch);
            let n = self.scratch.len().min(self.d_tokens.len());
            let mut dst = self.d_tokens.slice_mut(0..n);
            self.stream.memcpy_htod(&self.scratch[..n], &mut dst)?; // EXPECT: pageable_async_copy
            // Overwritten on the next iteration right away: fine for pageable memory.
            total += n;
        }
        self.stream.synchronize()?;
        Ok(total)
    }
}
