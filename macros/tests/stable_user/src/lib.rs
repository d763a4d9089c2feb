//! Every attribute of `cuda_lint` (package `cuda-lint-macros`), as a user's crate writes them.
#![warn(missing_docs, rust_2018_idioms, unused)]

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, Mapping, PinnedBuffer, Result, Stream};

/// Typed launches of `kernels/alias.cu` (camelCase kernel names are fine).
#[cuda_lint::kernels(file = "kernels/alias.cu")]
pub mod alias {}

/// Typed launches of an inline source; parameters named like Rust keywords or like the launch
/// method's own parameters.
#[cuda_lint::kernels(source = r#"
    extern "C" {
    __global__ void scale(float* x, const float* __restrict__ in, float a, unsigned int n) {
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) x[i] = a * in[i];
    }
    }
    extern "C" __global__ void every_type(const double* d, char c, signed char sc, unsigned char uc,
        short s, unsigned short us, int i, unsigned u, long long ll, unsigned long long ull,
        size_t z, int8_t a, uint8_t b, int16_t e, uint16_t f, int32_t g, uint32_t h, int64_t j,
        uint64_t k, float stream, volatile float* cfg, const volatile int* type) { }
"#)]
pub mod inline {
    /// A user's item in the module stays.
    pub const THREADS: u32 = 256;
}

/// A private module whose kernels are never launched: no dead-code warning.
#[cuda_lint::kernels(source = "extern \"C\" __global__ void unused(int* p) { p[0] = 1; }")]
mod unused_kernels {}

/// A wrapper of a stream.
pub struct Queue {
    stream: Stream,
}

impl Queue {
    /// A new stream of `ctx`.
    #[cuda_lint::allow(missing_sync, reason = "nothing is in flight yet")]
    pub fn new(ctx: &Context) -> Result<Queue> {
        Ok(Queue {
            stream: ctx.new_stream()?,
        })
    }

    /// Waits for the queue.
    #[cuda_lint::synchronizes(self)]
    pub fn finish(&self) -> Result<()> {
        self.stream.synchronize()
    }

    /// Uploads `src` into `dst`.
    ///
    /// # Safety
    /// As `Stream::copy_htod_async`.
    #[cuda_lint::copies_async(htod, dst = dst, src = src, stream = self)]
    pub unsafe fn upload(&self, dst: &mut DeviceBuffer<f32>, src: &[f32]) -> Result<()> {
        self.stream.copy_htod_async(dst, src)
    }

    /// Runs `alias::writeAReadB`.
    ///
    /// # Safety
    /// As `Stream::launch`.
    #[cuda_lint::launches(stream = self, reads(a, b), writes(a, out))]
    pub unsafe fn alias(
        &self,
        k: &alias::Kernels,
        a: &mut Mapping,
        b: &mut Mapping,
        out: &mut DeviceBuffer<i32>,
        n: u32,
    ) -> Result<()> {
        k.writeAReadB(&self.stream, LaunchConfig::for_num_elems(n), a, b, out)
    }
}

/// Waits for everything.
#[cuda_lint::synchronizes(all)]
pub fn wait_all(ctx: &Context) -> Result<()> {
    ctx.synchronize()
}

/// Waits for `s`.
#[cuda_lint::synchronizes(s)]
pub fn wait(s: &Stream) -> Result<()> {
    s.synchronize()
}

/// Downloads `input` into `out`.
///
/// # Safety
/// As `Stream::copy_dtoh_async`.
#[cuda_lint::copies_async(dst = out, src = input, stream = s)]
pub unsafe fn download(s: &Stream, out: &mut [f32], input: &DeviceBuffer<f32>) -> Result<()> {
    s.copy_dtoh_async(out, input)
}

/// Scales `input` into `out` on `s`.
///
/// # Safety
/// As `Stream::launch`.
#[cuda_lint::launches(stream = s, reads(input), writes(out))]
pub unsafe fn scale(
    k: &inline::Kernels,
    s: &Stream,
    out: &mut DeviceBuffer<f32>,
    input: &DeviceBuffer<f32>,
    n: u32,
) -> Result<()> {
    k.scale(s, LaunchConfig::for_num_elems(n), out, input, 2.0, n)
}

/// Pinned staging memory.
#[cuda_lint::returns(pinned)]
pub fn staging(ctx: &Context, n: usize) -> Result<PinnedBuffer<f32>> {
    ctx.alloc_pinned(n)
}

/// Device memory.
#[cuda_lint::returns(device)]
pub fn scratch(ctx: &Context, n: usize) -> Option<DeviceBuffer<f32>> {
    ctx.alloc(n).ok()
}

/// Managed memory.
#[cuda_lint::returns(managed)]
pub fn shared(ctx: &Context, n: usize) -> Result<cuda_lint_runtime::ManagedBuffer<f32>> {
    ctx.alloc_managed(n)
}

/// Host memory.
#[cuda_lint::returns(pageable)]
#[cuda_lint::allow(all)]
pub fn host(n: usize) -> Vec<f32> {
    vec![0.0; n]
}

/// Allowed lints on a module, and on items inside a function body.
#[cuda_lint::allow(host_deref_device_ptr, unfenced_vmm_alias, pageable_async_copy)]
pub mod quiet {
    /// Has an item inside.
    pub fn inner() -> u32 {
        #[cuda_lint::allow(missing_sync)]
        fn nested() -> u32 {
            1
        }
        nested()
    }
}

/// The generated API, used.
pub fn api(ctx: &Context) -> Result<(alias::Kernels, inline::Kernels)> {
    let _ = (alias::SOURCE, inline::SOURCE, inline::THREADS);
    let a = alias::Kernels::load(ctx)?;
    let _name = a.write_a_fence_read_b.name();
    Ok((a, inline::Kernels::load(ctx)?))
}
