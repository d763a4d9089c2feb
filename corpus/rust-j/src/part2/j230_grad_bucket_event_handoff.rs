//! case: near-miss. Distributed-training bucket reducer uploads a received gradient shard on a copy stream, records an event, and makes the reduce stream wait on it before the accumulate kernel reads the shard (runtime layer); the norm readback is read only after the reduce stream is synchronized
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const ACC_SRC: &str = r#"
extern "C" __global__ void accumulate(float* acc, const float* shard, float* sq_norm, float scale, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = acc[i] + scale * shard[i];
    acc[i] = v;
    atomicAdd(sq_norm, v * v);
}
"#;

pub struct BucketReducer {
    copy: Stream,
    reduce: Stream,
    shard_ready: Event,
    kernel: Kernel,
    shard_host: PinnedBuffer<f32>,
    shard_dev: DeviceBuffer<f32>,
    acc: DeviceBuffer<f32>,
    norm_dev: DeviceBuffer<f32>,
    norm_host: PinnedBuffer<f32>,
    received: usize,
}

impl BucketReducer {
    pub fn new(ctx: &Context, bucket_len: usize) -> Result<Self> {
        let m = ctx.load_cuda(ACC_SRC)?;
        Ok(Self {
            copy: ctx.new_stream()?,
            reduce: ctx.new_stream()?,
            shard_ready: ctx.new_event()?,
            kernel: m.function("accumulate")?,
            shard_host: ctx.alloc_pinned::<f32>(bucket_len)?,
            shard_dev: ctx.alloc::<f32>(bucket_len)?,
            acc: ctx.alloc_zeroed::<f32>(bucket_len)?,
            norm_dev: ctx.alloc_zeroed::<f32>(1)?,
            norm_host: ctx.alloc_pinned::<f32>(1)?,
            received: 0,
        })
    }

    /// Folds one peer's shard (already decoded from the wire) into the accumulator and returns
    /// the accumulator's L2 norm.
    pub fn fold(&mut self, decode: impl FnOnce(&mut [f32]), world: usize) -> Result<f32> {
        decode(&mut self.shard_host);
        unsafe { self.copy.copy_htod_async(&mut self.shard_dev, &self.shard_host)? };
        self.copy.record_event(&self.shard_ready)?;
        self.reduce.wait_event(&self.shard_ready)?;
        self.reduce.memset_d32_async(&mut self.norm_dev, 0)?;
        let n = self.acc.len() as u32;
        let scale = 1.0 / world as f32;
        unsafe { self.reduce.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[&self.acc, &self.shard_dev, &self.norm_dev, &scale, &n])? };
        unsafe { self.reduce.copy_dtoh_async(&mut self.norm_host, &self.norm_dev)? };
        self.reduce.synchronize()?;
        self.received += 1;
        Ok(self.norm_host[0].sqrt())
    }
}
