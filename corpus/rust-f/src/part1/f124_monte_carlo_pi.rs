//! case: a Monte Carlo estimator keeps the UI thread responsive by polling an event recorded after the result copy (`Event::query` until it reports completion) and only then reads the pinned result; the host work done while polling touches nothing the GPU uses
//! expect: none

use std::time::{Duration, Instant};

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const MC_SRC: &str = r#"
extern "C" __global__ void estimate_pi(unsigned long long* hits, unsigned int samples_per_thread, unsigned int seed)
{
    unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int s = seed ^ (tid * 747796405u + 2891336453u);
    unsigned long long local = 0;
    for (unsigned int k = 0; k < samples_per_thread; ++k) {
        s = s * 1664525u + 1013904223u; float x = (s >> 8) * (1.0f / 16777216.0f);
        s = s * 1664525u + 1013904223u; float y = (s >> 8) * (1.0f / 16777216.0f);
        local += (x * x + y * y <= 1.0f);
    }
    atomicAdd(hits, local);
}
"#;

pub struct Estimator {
    stream: Stream,
    kernel: Kernel,
    hits: DeviceBuffer<u64>,
    result: PinnedBuffer<u64>,
    done: Event,
}

impl Estimator {
    pub fn new(ctx: &Context) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(MC_SRC)?.function("estimate_pi")?,
            hits: ctx.alloc_zeroed::<u64>(1)?,
            result: ctx.alloc_pinned::<u64>(1)?,
            done: ctx.new_event()?,
        })
    }

    pub fn estimate(&mut self, blocks: u32, samples_per_thread: u32, mut on_tick: impl FnMut(Duration)) -> Result<f64> {
        self.stream.memset_d8_async(&mut self.hits, 0)?;
        let cfg = LaunchConfig { grid: (blocks, 1, 1), block: (256, 1, 1), shared_mem_bytes: 0 };
        let seed = 0x1234_5678u32;
        unsafe { self.stream.launch(&self.kernel, cfg, &[&mut self.hits, &samples_per_thread, &seed])? };
        unsafe { self.stream.copy_dtoh_async(&mut self.result, &self.hits)? };
        self.stream.record_event(&self.done)?;

        let started = Instant::now();
        while !self.done.query()? {
            on_tick(started.elapsed());
            std::thread::sleep(Duration::from_millis(2));
        }
        let total = blocks as f64 * 256.0 * samples_per_thread as f64;
        Ok(4.0 * self.result[0] as f64 / total)
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let mut est = Estimator::new(&ctx)?;
    let mut ticks = 0u32;
    let pi = est.estimate(4096, 4096, |t| {
        ticks += 1;
        if ticks % 50 == 0 {
            eprintln!("still running after {t:?}");
        }
    })?;
    println!("pi ~ {pi:.6} ({ticks} polls)");
    Ok(())
}
