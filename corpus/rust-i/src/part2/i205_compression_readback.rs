//! case: GPU block compressor (cudarc): compressed blocks are read back into a buffer from CudaContext::alloc_pinned, which cudarc 0.19 allocates write-combined, and the host then reads it to write the archive (synchronization is correct)
//! expect: write_combined_host_read=1

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::io::Write;
use std::sync::Arc;

const RLE_SRC: &str = r#"
extern "C" __global__ void rle_blocks(const unsigned char* in, unsigned n, unsigned block,
                                      unsigned char* out, unsigned* out_len) {
    unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned start = b * block;
    if (start >= n) return;
    unsigned end = min(start + block, n);
    unsigned w = start * 2;
    unsigned i = start;
    while (i < end) {
        unsigned char v = in[i];
        unsigned char run = 1;
        while (i + run < end && in[i + run] == v && run < 255) run++;
        out[w++] = run;
        out[w++] = v;
        i += run;
    }
    out_len[b] = w - start * 2;
}
"#;

pub struct BlockCompressor {
    stream: Arc<CudaStream>,
    rle: CudaFunction,
    block: usize,
    d_in: CudaSlice<u8>,
    d_out: CudaSlice<u8>,
    d_lens: CudaSlice<u32>,
    readback: PinnedHostSlice<u8>,
    lens_host: PinnedHostSlice<u32>,
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

impl BlockCompressor {
    pub fn new(ctx: &Arc<CudaContext>, capacity: usize, block: usize) -> Res<Self> {
        let module = ctx.load_module(compile_ptx(RLE_SRC)?)?;
        let stream = ctx.default_stream();
        let blocks = capacity.div_ceil(block);
        Ok(BlockCompressor {
            rle: module.load_function("rle_blocks")?,
            block,
            d_in: stream.alloc_zeros::<u8>(capacity)?,
            d_out: stream.alloc_zeros::<u8>(capacity * 2)?,
            d_lens: stream.alloc_zeros::<u32>(blocks)?,
            readback: unsafe { ctx.alloc_pinned::<u8>(capacity * 2)? },
            lens_host: unsafe { ctx.alloc_pinned_with_flags::<u32>(blocks, 0)? },
            stream,
        })
    }

    /// Compresses `input` (already in `staging`, a pinned upload buffer) into `archive`.
    pub fn compress_into<W: Write>(&mut self, staging: &PinnedHostSlice<u8>, len: usize, archive: &mut W) -> Res<usize> {
        let mut dst = self.d_in.slice_mut(0..len);
        self.stream.memcpy_htod(staging, &mut dst)?;
        let n = len as u32;
        let block = self.block as u32;
        let blocks = len.div_ceil(self.block) as u32;
        let cfg = LaunchConfig::for_num_elems(blocks);
        unsafe {
            self.stream
                .launch_builder(&self.rle)
                .arg(&self.d_in)
                .arg(&n)
                .arg(&block)
                .arg(&mut self.d_out)
                .arg(&mut self.d_lens)
                .launch(cfg)?;
        }
        self.stream.memcpy_dtoh(&self.d_out, &mut self.readback)?;
        self.stream.memcpy_dtoh(&self.d_lens, &mut self.lens_host)?;
        self.stream.synchronize()?;

        let lens = self.lens_host.as_slice()?;
        let mut written = 0;
        for (b, &l) in lens.iter().take(blocks as usize).enumerate() {
            let start = b * self.block * 2;
            archive.write_all(&(l as u32).to_le_bytes())?;
            archive.write_all(&self.readback.as_slice()?[start..start + l as usize])?; // EXPECT: write_combined_host_read
            written += 4 + l as usize;
        }
        Ok(written)
    }
}
