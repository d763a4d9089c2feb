//! case: embedding server with pluggable backends behind a trait object; the GPU backend synchronizes before reusing its token staging, but after the gather kernel and the readback it synchronizes only when profiling is on, then reads the pinned output (default stream only, so cudarc does not wait either)
//! expect: missing_sync=1

mod backend;
mod gpu;

pub use backend::{Backend, BackendError};
pub use gpu::GpuBackend;

pub struct EmbeddingServer {
    backends: Vec<Box<dyn Backend>>,
    default_backend: usize,
}

pub struct EmbedRequest<'a> {
    pub backend: Option<&'a str>,
    pub tokens: &'a [u32],
}

impl EmbeddingServer {
    pub fn new(backends: Vec<Box<dyn Backend>>) -> Self {
        Self { backends, default_backend: 0 }
    }

    fn route(&mut self, name: Option<&str>) -> Option<&mut Box<dyn Backend>> {
        let idx = match name {
            Some(n) => self.backends.iter().position(|b| b.name() == n)?,
            None => self.default_backend,
        };
        self.backends.get_mut(idx)
    }

    pub fn handle(&mut self, reqs: &[EmbedRequest<'_>]) -> Vec<Result<Vec<f32>, BackendError>> {
        reqs.iter()
            .map(|req| match self.route(req.backend) {
                Some(backend) => backend.embed(req.tokens),
                None => Err(BackendError::UnknownBackend),
            })
            .collect()
    }
}
