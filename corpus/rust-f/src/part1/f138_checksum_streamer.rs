//! case: a checksum streamer double-buffers uploads through two pinned slots on one stream and records an event after each slot's copy; before the host refills a slot it waits for that slot's event, so it never writes pinned memory a copy is still reading
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const ACC_SRC: &str = r#"
extern "C" __global__ void fletcher_partial(const unsigned int* words, unsigned int n, unsigned long long* acc)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(acc, (unsigned long long)words[i] * (unsigned long long)(n - i));
}
"#;

pub struct ChecksumStreamer {
    stream: Stream,
    kernel: Kernel,
    slots: [PinnedBuffer<u32>; 2],
    device: [DeviceBuffer<u32>; 2],
    copied: [Event; 2],
    acc: DeviceBuffer<u64>,
    result: PinnedBuffer<u64>,
}

impl ChecksumStreamer {
    pub fn new(ctx: &Context, chunk_words: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(ACC_SRC)?.function("fletcher_partial")?,
            slots: [ctx.alloc_pinned(chunk_words)?, ctx.alloc_pinned(chunk_words)?],
            device: [ctx.alloc(chunk_words)?, ctx.alloc(chunk_words)?],
            copied: [ctx.new_event()?, ctx.new_event()?],
            acc: ctx.alloc_zeroed(1)?,
            result: ctx.alloc_pinned(1)?,
        })
    }

    pub fn checksum<'a>(&mut self, chunks: impl IntoIterator<Item = &'a [u32]>) -> Result<u64> {
        self.stream.memset_d8_async(&mut self.acc, 0)?;
        for (i, chunk) in chunks.into_iter().enumerate() {
            let k = i % 2;
            let n = chunk.len().min(self.slots[k].len());
            self.copied[k].synchronize()?;
            self.slots[k][..n].copy_from_slice(&chunk[..n]);
            self.slots[k][n..].fill(0);
            unsafe { self.stream.copy_htod_async(&mut self.device[k], &self.slots[k])? };
            self.stream.record_event(&self.copied[k])?;
            let n = n as u32;
            unsafe {
                self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n.max(1)), &[&self.device[k], &n, &mut self.acc])?
            };
        }
        unsafe { self.stream.copy_dtoh_async(&mut self.result, &self.acc)? };
        self.stream.synchronize()?;
        Ok(self.result[0])
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let mut s = ChecksumStreamer::new(&ctx, 1 << 20)?;
    let data: Vec<u32> = (0..10_000_000u32).map(|i| i.wrapping_mul(2654435761)).collect();
    let sum = s.checksum(data.chunks(1 << 20))?;
    println!("checksum {sum:#018x}");
    Ok(())
}
