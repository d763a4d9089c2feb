//! Every attribute, as a user writes it; compiles (warning-free) in a plain build.
#![deny(warnings)]

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, PinnedBuffer, Result, Stream};

/// A user's wrapper of a stream.
pub struct Queue {
    stream: Stream,
}

impl Queue {
    #[cuda_lint::synchronizes(self)]
    pub fn finish(&self) -> Result<()> {
        self.stream.synchronize()
    }

    /// # Safety
    /// As `Stream::copy_htod_async`.
    #[cuda_lint::copies_async(htod, dst = dst, src = src, stream = self)]
    pub unsafe fn upload(&self, dst: &mut DeviceBuffer<f32>, src: &[f32]) -> Result<()> {
        unsafe { self.stream.copy_htod_async(dst, src) }
    }
}

#[cuda_lint::synchronizes(all)]
pub fn wait_for_everything(ctx: &Context) -> Result<()> {
    ctx.synchronize()
}

#[cuda_lint::synchronizes(s)]
#[cuda_lint::allow(missing_sync, reason = "the stream is synchronized here")]
pub fn wait(s: &Stream) -> Result<()> {
    s.synchronize()
}

/// # Safety
/// As `Stream::copy_dtoh_async`.
#[cuda_lint::copies_async(dst = out, src = input, stream = s)]
pub unsafe fn download(s: &Stream, out: &mut [f32], input: &DeviceBuffer<f32>) -> Result<()> {
    unsafe { s.copy_dtoh_async(out, input) }
}

#[cuda_lint::returns(pinned)]
pub fn staging(ctx: &Context, n: usize) -> Result<PinnedBuffer<f32>> {
    ctx.alloc_pinned(n)
}

#[cuda_lint::returns(device)]
pub fn scratch(ctx: &Context, n: usize) -> Option<DeviceBuffer<f32>> {
    ctx.alloc(n).ok()
}

#[cuda_lint::kernels(source = r#"
    extern "C" __global__ void scale(float* x, const float* __restrict__ in, float a, unsigned n) {
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) x[i] = a * in[i];
    }
    extern "C" __global__ void fill(int* d, size_t n, int v) {
        size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
        if (i < n) d[i] = v;
    }
"#)]
pub mod k {
    /// A user's item in the module stays.
    pub const BLOCK: u32 = 256;
}

/// # Safety
/// The buffers hold `n` elements and live until the stream is done.
#[cuda_lint::launches(stream = s, reads(input), writes(out))]
pub unsafe fn scale_on(
    kernels: &k::Kernels,
    s: &Stream,
    out: &mut DeviceBuffer<f32>,
    input: &DeviceBuffer<f32>,
    n: u32,
) -> Result<()> {
    unsafe { kernels.scale(s, LaunchConfig::for_num_elems(n), out, input, 2.0, n) }
}

#[cuda_lint::launches(stream = s)]
pub fn nothing_to_launch(s: &Stream) -> Result<bool> {
    s.query()
}

#[cuda_lint::allow(all)]
pub mod quiet {
    #[cuda_lint::allow(host_deref_device_ptr, unfenced_vmm_alias, pageable_async_copy)]
    pub fn inner() {
        #[cuda_lint::allow(missing_sync)]
        fn nested() {}
        nested();
    }
}

#[cuda_lint::allow(missing_sync)]
impl Queue {
    pub fn new(ctx: &Context) -> Result<Queue> {
        Ok(Queue {
            stream: ctx.new_stream()?,
        })
    }
}

fn main() {
    // Nothing runs here (no GPU is needed): the launch methods exist with these types.
    let _: unsafe fn(&k::Kernels, &Stream, LaunchConfig, &mut DeviceBuffer<i32>, usize, i32) -> Result<()> =
        |k, s, cfg, d, n, v| unsafe { k.fill(s, cfg, d, n, v) };
    let _ = k::SOURCE.len() + k::BLOCK as usize;
    let _ = k::Kernels::load;
}
