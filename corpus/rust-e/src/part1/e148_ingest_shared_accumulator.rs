//! case: log-ingestion service; parser threads share one GPU accumulator behind Arc<Mutex<..>>, each batch is staged in pinned memory, uploaded and folded in by a kernel, and the stream is synchronized before the lock (and so the staging buffer) is released; totals are read after the threads are joined
//! expect: none

use std::sync::{Arc, Mutex};
use std::thread;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const FOLD_SRC: &str = r#"
extern "C" __global__ void fold_latencies(const float* latency_ms, int n, unsigned long long* buckets, double* sum) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = latency_ms[i];
    int b = v < 1.0f ? 0 : min(1 + (int)log2f(v), 31);
    atomicAdd(&buckets[b], 1ull);
    atomicAdd(sum, (double)v);
}
"#;

pub struct Accumulator {
    stream: Stream,
    fold: Kernel,
    staging: PinnedBuffer<f32>,
    batch_dev: DeviceBuffer<f32>,
    buckets: DeviceBuffer<u64>,
    sum: DeviceBuffer<f64>,
}

impl Accumulator {
    pub fn new(ctx: &Context, batch: usize) -> Result<Self> {
        Ok(Accumulator {
            stream: ctx.new_stream()?,
            fold: ctx.load_cuda(FOLD_SRC)?.function("fold_latencies")?,
            staging: ctx.alloc_pinned(batch)?,
            batch_dev: ctx.alloc(batch)?,
            buckets: ctx.alloc_zeroed(32)?,
            sum: ctx.alloc_zeroed(1)?,
        })
    }

    fn add_batch(&mut self, latencies: &[f32]) -> Result<()> {
        for chunk in latencies.chunks(self.staging.len()) {
            self.staging[..chunk.len()].copy_from_slice(chunk);
            let n = chunk.len() as i32;
            unsafe {
                self.stream.copy_htod_async(&mut self.batch_dev, &self.staging)?;
                self.stream.launch(&self.fold, LaunchConfig::for_num_elems(n as u32), &[&self.batch_dev, &n, &self.buckets, &self.sum])?;
            }
            // the next chunk overwrites `staging`
            self.stream.synchronize()?;
        }
        Ok(())
    }

    fn totals(&mut self, ctx: &Context) -> Result<(Vec<u64>, f64)> {
        let mut buckets = ctx.alloc_pinned::<u64>(32)?;
        let mut sum = ctx.alloc_pinned::<f64>(1)?;
        self.stream.copy_dtoh(&mut buckets, &self.buckets)?;
        self.stream.copy_dtoh(&mut sum, &self.sum)?;
        Ok((buckets.to_vec(), sum[0]))
    }
}

fn parse_latency(line: &str) -> Option<f32> {
    line.split_whitespace().find_map(|f| f.strip_prefix("latency_ms=")).and_then(|v| v.parse().ok())
}

pub fn ingest(ctx: &Context, files: Vec<Vec<String>>) -> Result<(Vec<u64>, f64)> {
    let acc = Arc::new(Mutex::new(Accumulator::new(ctx, 1 << 16)?));
    let workers: Vec<_> = files
        .into_iter()
        .map(|lines| {
            let acc = Arc::clone(&acc);
            let ctx = ctx.clone();
            thread::spawn(move || -> Result<usize> {
                ctx.bind_to_thread()?;
                let parsed: Vec<f32> = lines.iter().filter_map(|l| parse_latency(l)).collect();
                let mut guard = acc.lock().expect("accumulator poisoned");
                guard.add_batch(&parsed)?;
                Ok(parsed.len())
            })
        })
        .collect();
    for w in workers {
        w.join().expect("parser thread panicked")?;
    }
    let mut guard = acc.lock().expect("accumulator poisoned");
    guard.totals(ctx)
}
