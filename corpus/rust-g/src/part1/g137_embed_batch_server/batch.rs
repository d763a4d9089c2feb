use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

pub const MAX_REQS: usize = 8;
pub const MAX_TOKENS: usize = 4096;

pub struct Batch {
    pub ids_host: PinnedBuffer<u32>,
    pub offsets_host: PinnedBuffer<u32>,
    ids_dev: DeviceBuffer<u32>,
    offsets_dev: DeviceBuffer<u32>,
    out_dev: DeviceBuffer<f32>,
    pub out_host: PinnedBuffer<f32>,
    pub n_reqs: usize,
    dim: usize,
}

impl Batch {
    pub fn new(ctx: &Context, dim: usize) -> Result<Self> {
        Ok(Batch {
            ids_host: ctx.alloc_pinned(MAX_TOKENS)?,
            offsets_host: ctx.alloc_pinned(MAX_REQS + 1)?,
            ids_dev: ctx.alloc(MAX_TOKENS)?,
            offsets_dev: ctx.alloc(MAX_REQS + 1)?,
            out_dev: ctx.alloc(MAX_REQS * dim)?,
            out_host: ctx.alloc_pinned(MAX_REQS * dim)?,
            n_reqs: 0,
            dim,
        })
    }

    /// Appends a request's ids; false when it does not fit.
    pub fn push(&mut self, ids: &[u32]) -> bool {
        let used = self.offsets_host[self.n_reqs] as usize;
        if self.n_reqs == MAX_REQS || used + ids.len() > MAX_TOKENS {
            return false;
        }
        self.ids_host[used..used + ids.len()].copy_from_slice(ids);
        self.n_reqs += 1;
        self.offsets_host[self.n_reqs] = (used + ids.len()) as u32;
        true
    }

    pub fn submit(&mut self, stream: &Stream, kernel: &Kernel, table: &DeviceBuffer<f32>) -> Result<()> {
        let dim = self.dim as u32;
        let cfg = LaunchConfig { grid: (self.n_reqs as u32, dim.div_ceil(128), 1), block: (128, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            stream.copy_htod_async(&mut self.ids_dev, &self.ids_host)?;
            stream.copy_htod_async(&mut self.offsets_dev, &self.offsets_host)?;
            stream.launch(kernel, cfg, &[&self.ids_dev, &self.offsets_dev, table, &self.out_dev, &dim])?;
            stream.copy_dtoh_async(&mut self.out_host, &self.out_dev)?;
        }
        Ok(())
    }

    /// Waits for the submitted work; afterwards the host buffers may be read and refilled.
    pub fn finish(&mut self, stream: &Stream) -> Result<Vec<Vec<f32>>> {
        stream.synchronize()?;
        let rows = self.out_host.chunks(self.dim).take(self.n_reqs).map(<[f32]>::to_vec).collect();
        self.n_reqs = 0;
        self.offsets_host[0] = 0;
        Ok(rows)
    }
}
