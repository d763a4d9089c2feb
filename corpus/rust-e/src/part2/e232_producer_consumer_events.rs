//! case: near-miss of the cross-stream readback: the copy stream waits on an event recorded on the compute stream after the kernel, and the host reads the pinned result after synchronizing the copy stream
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const MSM_SRC: &str = r#"
extern "C" __global__ void bucket_accumulate(const unsigned long long* scalars, const unsigned long long* points,
                                             unsigned long long* buckets, unsigned int window, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int b = (unsigned int)((scalars[i] >> (window * 8)) & 0xFF);
        atomicAdd(&buckets[b], points[i]);
    }
}
"#;

pub struct MsmWindows {
    compute: Stream,
    copy: Stream,
    kernel: Kernel,
    buckets: Vec<DeviceBuffer<u64>>,
    host_buckets: Vec<PinnedBuffer<u64>>,
    ready: Vec<Event>,
}

impl MsmWindows {
    pub fn new(ctx: &Context, windows: usize) -> Result<Self> {
        let mut buckets = Vec::with_capacity(windows);
        let mut host_buckets = Vec::with_capacity(windows);
        let mut ready = Vec::with_capacity(windows);
        for _ in 0..windows {
            buckets.push(ctx.alloc_zeroed::<u64>(256)?);
            host_buckets.push(ctx.alloc_pinned::<u64>(256)?);
            ready.push(ctx.new_event()?);
        }
        Ok(Self { compute: ctx.new_stream()?, copy: ctx.new_stream()?, kernel: ctx.load_cuda(MSM_SRC)?.function("bucket_accumulate")?, buckets, host_buckets, ready })
    }

    pub fn run(&mut self, scalars: &DeviceBuffer<u64>, points: &DeviceBuffer<u64>) -> Result<Vec<u64>> {
        let n = scalars.len() as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        for (w, ((dev, host), ev)) in self.buckets.iter().zip(self.host_buckets.iter_mut()).zip(&self.ready).enumerate() {
            let window = w as u32;
            unsafe { self.compute.launch(&self.kernel, cfg, &[scalars, points, dev, &window, &n])? };
            self.compute.record_event(ev)?;
            self.copy.wait_event(ev)?;
            unsafe { self.copy.copy_dtoh_async(host, dev)? };
        }
        self.copy.synchronize()?;
        let sums = self.host_buckets.iter().map(|h| h.iter().enumerate().fold(0u64, |acc, (b, &v)| acc.wrapping_add(v.wrapping_mul(b as u64)))).collect();
        Ok(sums)
    }
}
