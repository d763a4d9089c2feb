//! # cuda-lint-runtime
//!
//! A CUDA runtime layer over the CUDA **driver** API, for Rust host code that `cargo cuda-lint`
//! checks. The bindings are cudarc's `driver::sys` and `nvrtc::sys`, loaded at run time: the
//! crate builds without CUDA, and on a machine without a driver every call returns
//! [`Error::NoDriver`] instead of panicking.
//!
//! The public names are a contract (see `runtime/API.md`): cuda-lint recognises calls by path.
//!
//! ```no_run
//! use cuda_lint_runtime::{Context, LaunchConfig};
//!
//! # fn main() -> cuda_lint_runtime::Result<()> {
//! let ctx = match Context::new(0) {
//!     Ok(ctx) => ctx,
//!     Err(e) if e.is_unavailable() => { println!("skip: {e}"); return Ok(()) }
//!     Err(e) => return Err(e),
//! };
//! let module = ctx.load_cuda(r#"
//!     extern "C" __global__ void scale(float* x, float a, unsigned n) {
//!         unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
//!         if (i < n) x[i] *= a;
//!     }"#)?;
//! let scale = module.function("scale")?;
//! let stream = ctx.new_stream()?;
//! let mut host = ctx.alloc_pinned::<f32>(1024)?;
//! host.fill(1.0);
//! let mut dev = stream.clone_htod(&host)?;
//! let n = 1024u32;
//! // SAFETY: the arguments match `scale(float*, float, unsigned)` and `dev` outlives the kernel.
//! unsafe { stream.launch(&scale, LaunchConfig::for_num_elems(n), &[&dev, &2.0f32, &n])? };
//! // SAFETY: `host` is not touched until the stream is synchronized.
//! unsafe { stream.copy_dtoh_async(&mut host, &dev)? };
//! stream.synchronize()?;
//! assert!(host.iter().all(|&v| v == 2.0));
//! # let _ = &mut dev;
//! # Ok(()) }
//! ```

pub mod context;
pub mod device;
mod driver;
pub mod error;
pub mod kernel;
pub mod memory;
pub mod stream;
pub mod timing;
pub mod vmm;

pub use context::Context;
pub use device::{Device, DeviceProperties, device_count, driver_version, init};
pub use error::{Error, Result};
pub use kernel::{DeviceArg, Kernel, KernelArg, LaunchConfig, Module, Ptx, nvrtc_version};
pub use memory::{
    DeviceBuffer, DeviceMemory, DevicePtr, DeviceRepr, ManagedBuffer, PinnedBuffer, PinnedFlags, RegisteredHost,
};
pub use stream::{Event, Stream};
pub use timing::{EventTimer, time_ms};
pub use vmm::{AccessFlags, Mapping, PhysicalAllocation, VirtualRange};
