//! case: a process-wide engine (context, stream, histogram kernel) in a OnceLock; histogram() synchronizes the global stream before reading the bins, histogram_peek() reads them first
//! expect: missing_sync=1
use std::sync::OnceLock;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const HIST_SRC: &str = r#"
extern "C" __global__ void histogram(const unsigned char* data, unsigned* bins, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[data[i]], 1u);
}
"#;

pub struct Engine {
    pub ctx: Context,
    pub stream: Stream,
    pub histogram: Kernel,
}

static ENGINE: OnceLock<Engine> = OnceLock::new();

fn engine() -> &'static Engine {
    ENGINE.get_or_init(|| {
        let ctx = Context::new(0).expect("no CUDA device");
        let stream = ctx.new_stream().expect("stream");
        let histogram = ctx.load_cuda(HIST_SRC).and_then(|m| m.function("histogram")).expect("kernel");
        Engine { ctx, stream, histogram }
    })
}

fn enqueue(data: &DeviceBuffer<u8>, bins_dev: &mut DeviceBuffer<u32>, bins: &mut PinnedBuffer<u32>) -> Result<()> {
    let e = engine();
    let n = data.len() as u32;
    e.stream.memset_d32_async(bins_dev, 0)?;
    // SAFETY: histogram(const uchar*, unsigned*, unsigned); bins_dev holds 256 counters.
    unsafe { e.stream.launch(&e.histogram, LaunchConfig::for_num_elems(n), &[data, &*bins_dev, &n])? };
    // SAFETY: `bins` is pinned and outlives the copy.
    unsafe { e.stream.copy_dtoh_async(bins, bins_dev) }
}

pub fn histogram(data: &DeviceBuffer<u8>, bins_dev: &mut DeviceBuffer<u32>, bins: &mut PinnedBuffer<u32>) -> Result<u32> {
    enqueue(data, bins_dev, bins)?;
    engine().stream.synchronize()?;
    Ok(bins.iter().copied().max().unwrap_or(0))
}

pub fn histogram_peek(data: &DeviceBuffer<u8>, bins_dev: &mut DeviceBuffer<u32>, bins: &mut PinnedBuffer<u32>) -> Result<u32> {
    enqueue(data, bins_dev, bins)?;
    let zero_bin = bins[0]; // EXPECT: missing_sync
    engine().stream.synchronize()?;
    Ok(zero_bin)
}
