//! case: a generic `Pipeline<B: Backend>` whose CUDA backend uploads a 4 MiB pageable warm-up tensor through a trait method
//! expect: pageable_async_copy=1
use cuda_lint_runtime::{Context, DeviceBuffer, Result, Stream};

/// 1 Mi floats: 4 MiB.
pub const WARMUP_LEN: usize = 1 << 20;

pub trait Backend {
    type Tensor;
    fn upload(&mut self, host: &[f32]) -> Result<Self::Tensor>;
    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
}

pub struct CudaBackend {
    ctx: Context,
    stream: Stream,
}

impl CudaBackend {
    pub fn new(ordinal: usize) -> Result<Self> {
        let ctx = Context::new(ordinal)?;
        let stream = ctx.new_stream()?;
        Ok(Self { ctx, stream })
    }
}

impl Backend for CudaBackend {
    type Tensor = DeviceBuffer<f32>;
    fn upload(&mut self, host: &[f32]) -> Result<DeviceBuffer<f32>> {
        let mut d = self.ctx.alloc::<f32>(host.len())?;
        // SAFETY: `host` outlives the call; a pageable source is staged before it returns.
        unsafe { self.stream.copy_htod_async(&mut d, host)? }; // EXPECT: pageable_async_copy
        Ok(d)
    }
    fn finish(&mut self) -> Result<()> {
        self.stream.synchronize()
    }
}

pub struct Pipeline<B: Backend> {
    backend: B,
    warm: Option<B::Tensor>,
}

impl<B: Backend> Pipeline<B> {
    pub fn new(backend: B) -> Self {
        Self { backend, warm: None }
    }

    pub fn warm_up(&mut self) -> Result<&B::Tensor> {
        let host = vec![0.5f32; WARMUP_LEN];
        let t = self.backend.upload(&host)?;
        self.backend.finish()?;
        Ok(self.warm.get_or_insert(t))
    }
}

pub fn start() -> Result<Pipeline<CudaBackend>> {
    let mut p = Pipeline::new(CudaBackend::new(0)?);
    p.warm_up()?;
    Ok(p)
}
