//! case: a worker thread given an Arc<Stream> launches a kernel and an async readback into a pinned buffer it hands back through join(); the main thread reads it after join() but before synchronizing
//! expect: missing_sync=1
use std::sync::Arc;
use std::thread;

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, PinnedBuffer, Result, Stream};

const IOTA_SRC: &str = r#"
extern "C" __global__ void iota(float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (float)i;
}
"#;

type Handoff = (PinnedBuffer<f32>, DeviceBuffer<f32>);

fn spawn_producer(ctx: &Context, stream: Arc<Stream>, n: usize) -> Result<thread::JoinHandle<Result<Handoff>>> {
    let kernel = ctx.load_cuda(IOTA_SRC)?.function("iota")?;
    let dev = ctx.alloc::<f32>(n)?;
    let host = ctx.alloc_pinned::<f32>(n)?;
    Ok(thread::spawn(move || {
        let (mut host, dev) = (host, dev);
        let len = n as u32;
        // SAFETY: `iota(float*, unsigned)` over `dev`'s n floats.
        unsafe { stream.launch(&kernel, LaunchConfig::for_num_elems(len), &[&dev, &len])? };
        // SAFETY: the receiver of `host` must synchronize `stream` before reading it.
        unsafe { stream.copy_dtoh_async(&mut host, &dev)? };
        Ok((host, dev))
    }))
}

pub fn run(ctx: &Context, n: usize) -> Result<f32> {
    let stream = Arc::new(ctx.new_stream()?);
    let handle = spawn_producer(ctx, Arc::clone(&stream), n)?;
    let (host, dev) = handle.join().expect("producer panicked")?;
    // join() only waits for the thread, which returned right after enqueueing
    let last = host[host.len() - 1]; // EXPECT: missing_sync
    stream.synchronize()?;
    drop(dev);
    Ok(last)
}
