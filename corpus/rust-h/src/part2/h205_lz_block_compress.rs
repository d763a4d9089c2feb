//! case: block compressor of a storage service using the runtime layer; the caller's input and output `Vec`s are page-locked in place with `register_host` for the async copies, the per-block sizes land in a pinned buffer, and everything is read and unregistered only after `stream.synchronize()`
//! expect: none

use cuda_lint_runtime::{Context, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const COMPRESS_SRC: &str = r#"
extern "C" __global__ void rle_blocks(const unsigned char* in, unsigned char* out, unsigned* sizes,
                                      unsigned block, unsigned n_blocks) {
    unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= n_blocks) return;
    const unsigned char* src = in + (size_t)b * block;
    unsigned char* dst = out + (size_t)b * block * 2;
    unsigned w = 0;
    for (unsigned i = 0; i < block;) {
        unsigned char v = src[i];
        unsigned run = 1;
        while (i + run < block && src[i + run] == v && run < 255) ++run;
        dst[w++] = (unsigned char)run;
        dst[w++] = v;
        i += run;
    }
    sizes[b] = w;
}
"#;

pub struct BlockCompressor {
    ctx: Context,
    stream: Stream,
    kernel: Kernel,
    block: usize,
    sizes: PinnedBuffer<u32>,
}

pub struct Compressed {
    pub block_sizes: Vec<u32>,
    pub total: u64,
}

impl BlockCompressor {
    pub fn new(ctx: &Context, block: usize, max_blocks: usize) -> Result<Self> {
        let kernel = ctx.load_cuda(COMPRESS_SRC)?.function("rle_blocks")?;
        Ok(Self {
            ctx: ctx.clone(),
            stream: ctx.new_stream()?,
            kernel,
            block,
            sizes: ctx.alloc_pinned::<u32>(max_blocks)?,
        })
    }

    /// `input.len()` must be a multiple of the block size; `output` gets twice the room.
    pub fn compress(&mut self, input: &mut Vec<u8>, output: &mut Vec<u8>) -> Result<Compressed> {
        let n_blocks = input.len() / self.block;
        output.resize(input.len() * 2, 0);

        let mut dev_in = self.ctx.alloc::<u8>(input.len())?;
        let dev_out = self.ctx.alloc::<u8>(output.len())?;
        let dev_sizes = self.ctx.alloc::<u32>(self.sizes.len())?;

        let pinned_in = self.ctx.register_host(input.as_mut_slice())?;
        let mut pinned_out = self.ctx.register_host(output.as_mut_slice())?;

        unsafe { self.stream.copy_htod_async(&mut dev_in, &pinned_in)? };
        let (block, n) = (self.block as u32, n_blocks as u32);
        unsafe {
            self.stream.launch(
                &self.kernel,
                LaunchConfig::for_num_elems(n),
                &[&dev_in, &dev_out, &dev_sizes, &block, &n],
            )?
        };
        unsafe { self.stream.copy_dtoh_async(&mut pinned_out, &dev_out)? };
        unsafe { self.stream.copy_dtoh_async(&mut self.sizes, &dev_sizes)? };
        self.stream.synchronize()?;

        drop(pinned_out);
        drop(pinned_in);

        let block_sizes = self.sizes[..n_blocks].to_vec();
        let total = block_sizes.iter().map(|&s| s as u64).sum();
        Ok(Compressed { block_sizes, total })
    }
}
