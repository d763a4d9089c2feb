//! case: a log compressor streams chunks through two pinned slots on one stream but only throttles with a stream synchronize every fourth chunk; the host refills slot 0 for chunk 2 while chunk 0's upload from that slot may still be in flight
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const COUNT_SRC: &str = r#"
extern "C" __global__ void byte_classes(const unsigned char* bytes, unsigned int n, unsigned int* classes)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned char c = bytes[i];
    unsigned int k = c < 32 ? 0 : (c < 128 ? 1 : 2);
    atomicAdd(&classes[k], 1u);
}
"#;

pub struct ClassCounter {
    stream: Stream,
    kernel: Kernel,
    slots: Vec<PinnedBuffer<u8>>,
    device: Vec<DeviceBuffer<u8>>,
    classes: DeviceBuffer<u32>,
    chunk: usize,
}

impl ClassCounter {
    pub fn new(ctx: &Context, chunk: usize) -> Result<Self> {
        let slots = (0..2).map(|_| ctx.alloc_pinned::<u8>(chunk)).collect::<Result<Vec<_>>>()?;
        let device = (0..2).map(|_| ctx.alloc::<u8>(chunk)).collect::<Result<Vec<_>>>()?;
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(COUNT_SRC)?.function("byte_classes")?,
            slots,
            device,
            classes: ctx.alloc_zeroed::<u32>(3)?,
            chunk,
        })
    }

    /// Counts control, ASCII and high bytes of `log`.
    pub fn count(&mut self, log: &[u8]) -> Result<[u32; 3]> {
        self.stream.memset_d32_async(&mut self.classes, 0)?;
        for (i, (piece, k)) in log.chunks(self.chunk).zip([0usize, 1].into_iter().cycle()).enumerate() {
            self.slots[k][..piece.len()].copy_from_slice(piece); // EXPECT: missing_sync
            unsafe { self.stream.copy_htod_async(&mut self.device[k], &self.slots[k])? };
            let n = piece.len() as u32;
            unsafe { self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[&self.device[k], &n, &mut self.classes])? };
            if i % 4 == 3 {
                self.stream.synchronize()?; // keep at most four chunks in flight
            }
        }
        let mut out = [0u32; 3];
        self.stream.synchronize()?;
        self.stream.copy_dtoh(&mut out, &self.classes)?;
        Ok(out)
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let mut counter = ClassCounter::new(&ctx, 4 << 20)?;
    let log: Vec<u8> = (0..50_000_000u32).map(|i| (i % 251) as u8).collect();
    let [ctrl, ascii, high] = counter.count(&log)?;
    println!("control {ctrl}, ascii {ascii}, high {high}");
    Ok(())
}
