//! case: a tensor library dispatches through `dyn Backend`; the GPU backend's `download` (runtime layer) only enqueues the D2H copy into the caller's pinned buffer and returns, and the caller reads the buffer as if `download` were blocking like the CPU backend's
//! expect: missing_sync=1
use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Stream};

pub trait Backend {
    fn name(&self) -> &'static str;
    /// Copies the backend's tensor into `out`.
    fn download(&mut self, out: &mut [f32]) -> cuda_lint_runtime::Result<()>;
}

pub struct CpuBackend {
    data: Vec<f32>,
}

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }
    fn download(&mut self, out: &mut [f32]) -> cuda_lint_runtime::Result<()> {
        out.copy_from_slice(&self.data);
        Ok(())
    }
}

pub struct GpuBackend {
    stream: Stream,
    tensor: DeviceBuffer<f32>,
}

impl GpuBackend {
    pub fn new(ctx: &Context, len: usize) -> cuda_lint_runtime::Result<Self> {
        Ok(Self { stream: ctx.new_stream()?, tensor: ctx.alloc_zeroed::<f32>(len)? })
    }
}

impl Backend for GpuBackend {
    fn name(&self) -> &'static str {
        "cuda"
    }
    fn download(&mut self, out: &mut [f32]) -> cuda_lint_runtime::Result<()> {
        // Fast path: the caller passes pinned memory, so this does not block.
        unsafe { self.stream.copy_dtoh_async(out, &self.tensor) }
    }
}

/// Prints summary statistics of a tensor, whatever the backend.
pub fn describe(backend: &mut dyn Backend, scratch: &mut PinnedBuffer<f32>) -> cuda_lint_runtime::Result<String> {
    backend.download(&mut scratch[..])?;
    let (min, max) = scratch.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &x| (lo.min(x), hi.max(x))); // EXPECT: missing_sync
    Ok(format!("{}: min {min} max {max}", backend.name()))
}
