//! case: a generic `Staged<T>` (runtime layer) pairs a pinned buffer with a device buffer and remembers whether a copy out of the pinned side is in flight; `push` synchronizes the stream before refilling when one is, and the owning batch's Drop synchronizes before the pinned buffers are freed
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, DeviceRepr, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const SCATTER_SRC: &str = r#"
extern "C" __global__ void scatter_add(const unsigned int* ids, const float* vals, unsigned int n, float* out, unsigned int out_len) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && ids[i] < out_len) atomicAdd(&out[ids[i]], vals[i]);
}
"#;

pub struct Staged<T: DeviceRepr> {
    host: PinnedBuffer<T>,
    dev: DeviceBuffer<T>,
    in_flight: bool,
}

impl<T: DeviceRepr + Copy + Default> Staged<T> {
    pub fn new(ctx: &Context, capacity: usize) -> Result<Self> {
        Ok(Self { host: ctx.alloc_pinned(capacity)?, dev: ctx.alloc(capacity)?, in_flight: false })
    }

    /// Copies `src` into the pinned side and enqueues its upload on `stream`.
    pub fn push(&mut self, stream: &Stream, src: &[T]) -> Result<usize> {
        if self.in_flight {
            // the previous upload may still be reading `host`
            stream.synchronize()?;
            self.in_flight = false;
        }
        let n = src.len().min(self.host.len());
        self.host[..n].copy_from_slice(&src[..n]);
        self.host[n..].fill(T::default());
        unsafe { stream.copy_htod_async(&mut self.dev, &self.host)? };
        self.in_flight = true;
        Ok(n)
    }

    fn settled(&mut self) {
        self.in_flight = false;
    }
}

pub struct SparseAccumulator {
    stream: Stream,
    scatter: Kernel,
    ids: Staged<u32>,
    vals: Staged<f32>,
    pub out: DeviceBuffer<f32>,
}

impl SparseAccumulator {
    pub fn new(ctx: &Context, batch: usize, out_len: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            scatter: ctx.load_cuda(SCATTER_SRC)?.function("scatter_add")?,
            ids: Staged::new(ctx, batch)?,
            vals: Staged::new(ctx, batch)?,
            out: ctx.alloc_zeroed(out_len)?,
        })
    }

    pub fn add(&mut self, ids: &[u32], vals: &[f32]) -> Result<()> {
        let n = self.ids.push(&self.stream, ids)?.min(self.vals.push(&self.stream, vals)?) as u32;
        let out_len = self.out.len() as u32;
        unsafe {
            self.stream.launch(&self.scatter, LaunchConfig::for_num_elems(n), &[&self.ids.dev, &self.vals.dev, &n, &self.out, &out_len])
        }
    }

    pub fn finish(&mut self) -> Result<()> {
        self.stream.synchronize()?;
        self.ids.settled();
        self.vals.settled();
        Ok(())
    }
}

impl Drop for SparseAccumulator {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}
