use cuda_lint_runtime::{Context, DeviceBuffer, Error, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

use super::kernels::KV_APPEND_SRC;

pub struct KvCache {
    stream: Stream,
    k_cache: DeviceBuffer<f32>,
    v_cache: DeviceBuffer<f32>,
    k_stage: PinnedBuffer<f32>,
    v_stage: PinnedBuffer<f32>,
    k_new: DeviceBuffer<f32>,
    v_new: DeviceBuffer<f32>,
    row_out: DeviceBuffer<f32>,
    row_host: PinnedBuffer<f32>,
    append_k: Kernel,
    read_row: Kernel,
    len: usize,
    max_len: usize,
    width: usize,
}

impl KvCache {
    pub fn new(ctx: &Context, max_len: usize, n_heads: usize, head_dim: usize) -> Result<Self> {
        let width = n_heads * head_dim;
        let module = ctx.load_cuda(KV_APPEND_SRC)?;
        Ok(KvCache {
            stream: ctx.new_stream()?,
            k_cache: ctx.alloc_zeroed(max_len * width)?,
            v_cache: ctx.alloc_zeroed(max_len * width)?,
            k_stage: ctx.alloc_pinned(width)?,
            v_stage: ctx.alloc_pinned(width)?,
            k_new: ctx.alloc(width)?,
            v_new: ctx.alloc(width)?,
            row_out: ctx.alloc(width)?,
            row_host: ctx.alloc_pinned(width)?,
            append_k: module.function("kv_append")?,
            read_row: module.function("kv_read_row")?,
            len: 0,
            max_len,
            width,
        })
    }

    /// Blocks until every copy and kernel of earlier steps is done, so the staging buffers
    /// can be rewritten.
    fn wait_idle(&self) -> Result<()> {
        self.stream.synchronize()
    }

    pub fn append(&mut self, k: &[f32], v: &[f32]) -> Result<()> {
        if self.len == self.max_len {
            return Err(Error::Unsupported { what: format!("KV cache full at {} tokens", self.max_len) });
        }
        self.wait_idle()?;
        self.k_stage.copy_from_slice(k);
        self.v_stage.copy_from_slice(v);
        let pos = self.len as u32;
        let width = self.width as u32;
        // SAFETY: the staging buffers are not touched again before the next `wait_idle`.
        unsafe {
            self.stream.copy_htod_async(&mut self.k_new, &self.k_stage)?;
            self.stream.copy_htod_async(&mut self.v_new, &self.v_stage)?;
            self.stream.launch(
                &self.append_k,
                LaunchConfig::for_num_elems(width),
                &[&self.k_cache, &self.v_cache, &self.k_new, &self.v_new, &pos, &width],
            )?;
        }
        self.len += 1;
        Ok(())
    }

    pub fn last_key_row(&mut self) -> Result<Vec<f32>> {
        let pos = self.len.saturating_sub(1) as u32;
        let width = self.width as u32;
        unsafe {
            self.stream.launch(
                &self.read_row,
                LaunchConfig::for_num_elems(width),
                &[&self.k_cache, &self.row_out, &pos, &width],
            )?;
            self.stream.copy_dtoh_async(&mut self.row_host, &self.row_out)?;
        }
        self.wait_idle()?;
        Ok(self.row_host.to_vec())
    }
}
