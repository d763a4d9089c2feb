use cuda_lint_runtime::{DeviceBuffer, LaunchConfig, PinnedBuffer, Result, Stream};

use super::pool::Shared;

const MAX_IDS: usize = 8192;

pub struct Worker {
    stream: Stream,
    ids_host: PinnedBuffer<u32>,
    ids_dev: DeviceBuffer<u32>,
    out_dev: DeviceBuffer<f32>,
    out_host: PinnedBuffer<f32>,
}

impl Worker {
    pub fn new(shared: &Shared) -> Result<Self> {
        let ctx = &shared.ctx;
        ctx.bind_to_thread()?;
        Ok(Worker {
            stream: ctx.new_stream()?,
            ids_host: ctx.alloc_pinned(MAX_IDS)?,
            ids_dev: ctx.alloc(MAX_IDS)?,
            out_dev: ctx.alloc(shared.dim)?,
            out_host: ctx.alloc_pinned(shared.dim)?,
        })
    }

    fn drain(&self) -> Result<()> {
        self.stream.synchronize()
    }

    pub fn embed(&mut self, shared: &Shared, ids: &[u32]) -> Result<Vec<f32>> {
        let n = ids.len().min(MAX_IDS);
        self.ids_host[..n].copy_from_slice(&ids[..n]);
        let (n32, dim) = (n as u32, shared.dim as u32);
        unsafe {
            self.stream.copy_htod_async(&mut self.ids_dev, &self.ids_host)?;
            self.stream.launch(&shared.encode, LaunchConfig::for_num_elems(dim), &[&self.ids_dev, &n32, &shared.table, &self.out_dev, &dim])?;
            self.stream.copy_dtoh_async(&mut self.out_host, &self.out_dev)?;
        }
        self.drain()?;
        Ok(self.out_host.to_vec())
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.drain();
    }
}
