//! case: paged-attention decode step that refreshes its per-step metadata (block table, sequence lengths, step counter) with cudarc `memcpy_htod` from fixed-size stack arrays of a few hundred bytes, and reads back the finished flags into a 16-entry stack array with `memcpy_dtoh`, whose pageable destination is complete when the call returns
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

pub const MAX_SEQS: usize = 16;
pub const BLOCKS_PER_SEQ: usize = 8;
const EOS: i32 = 2;

const META_SRC: &str = r#"
extern "C" __global__ void mark_finished(const int* next_tokens, const unsigned* seq_lens,
                                         const unsigned long long* step, unsigned* finished,
                                         unsigned max_len, int eos, unsigned n) {
    unsigned s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < n) finished[s] = (next_tokens[s] == eos || seq_lens[s] + 1 >= max_len || step[0] > 4096) ? 1u : 0u;
}
"#;

pub struct DecodeMeta {
    stream: Arc<CudaStream>,
    mark: CudaFunction,
    block_table: CudaSlice<u32>,
    seq_lens: CudaSlice<u32>,
    step: CudaSlice<u64>,
    finished: CudaSlice<u32>,
}

impl DecodeMeta {
    pub fn new(stream: Arc<CudaStream>) -> Result<Self> {
        let mark = stream.context().load_module(compile_ptx(META_SRC)?)?.load_function("mark_finished")?;
        Ok(DecodeMeta {
            block_table: stream.alloc_zeros(MAX_SEQS * BLOCKS_PER_SEQ)?,
            seq_lens: stream.alloc_zeros(MAX_SEQS)?,
            step: stream.alloc_zeros(1)?,
            finished: stream.alloc_zeros(MAX_SEQS)?,
            mark,
            stream,
        })
    }

    pub fn refresh(&mut self, table: &[[u32; BLOCKS_PER_SEQ]; MAX_SEQS], lens: &[u32; MAX_SEQS], step: u64) -> Result<()> {
        let mut flat = [0u32; MAX_SEQS * BLOCKS_PER_SEQ];
        flat.chunks_exact_mut(BLOCKS_PER_SEQ).zip(table.iter()).for_each(|(dst, row)| dst.copy_from_slice(row));
        self.stream.memcpy_htod(&flat, &mut self.block_table)?;
        self.stream.memcpy_htod(lens, &mut self.seq_lens)?;
        self.stream.memcpy_htod(&[step], &mut self.step)?;
        Ok(())
    }

    pub fn finished_after(&mut self, next_tokens: &CudaSlice<i32>, max_len: u32) -> Result<Vec<usize>> {
        let n = MAX_SEQS as u32;
        let eos = EOS;
        let mut b = self.stream.launch_builder(&self.mark);
        b.arg(next_tokens).arg(&self.seq_lens).arg(&self.step).arg(&mut self.finished).arg(&max_len).arg(&eos).arg(&n);
        unsafe { b.launch(LaunchConfig::for_num_elems(n))? };

        let mut flags = [0u32; MAX_SEQS];
        self.stream.memcpy_dtoh(&self.finished, &mut flags)?;
        Ok(flags.iter().enumerate().filter(|&(_, &f)| f != 0).map(|(i, _)| i).collect())
    }
}

pub fn decode_loop(next_tokens: &CudaSlice<i32>, steps: u64) -> Result<Vec<usize>> {
    let ctx: Arc<CudaContext> = next_tokens.context().clone();
    let mut meta = DecodeMeta::new(ctx.new_stream()?)?;
    let mut table = [[0u32; BLOCKS_PER_SEQ]; MAX_SEQS];
    let mut lens = [1u32; MAX_SEQS];
    let mut done = Vec::new();
    for step in 0..steps {
        table.iter_mut().enumerate().for_each(|(s, row)| row[(step as usize / 16) % BLOCKS_PER_SEQ] = (s * BLOCKS_PER_SEQ) as u32);
        meta.refresh(&table, &lens, step)?;
        done = meta.finished_after(next_tokens, 2048)?;
        lens.iter_mut().for_each(|l| *l += 1);
    }
    Ok(done)
}
