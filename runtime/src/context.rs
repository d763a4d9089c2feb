//! The device's primary context: `cuDevicePrimaryCtxRetain` / `cuDevicePrimaryCtxRelease_v2`.
//!
//! Every public method of [`Context`] is declared here (so that each has one path,
//! `cuda_lint_runtime::context::Context::NAME`); the allocation, stream, kernel and VMM ones
//! delegate to the modules of what they create (`memory.rs`, `stream.rs`, `kernel.rs`,
//! `vmm.rs`).

use std::fmt;
use std::sync::Arc;

use cudarc::driver::sys;

use crate::device::{Device, DeviceProperties};
use crate::driver::{check, ensure_driver};
use crate::error::Result;
use crate::kernel::{Module, Ptx};
use crate::memory::{DeviceBuffer, DeviceRepr, ManagedBuffer, PinnedBuffer, PinnedFlags, RegisteredHost};
use crate::stream::{Event, Stream};

/// A retained primary context of one device (`cuDevicePrimaryCtxRetain`), the same context the
/// CUDA runtime API uses.
///
/// Cheap to clone (an `Arc`): every buffer, stream, event, module and VMM object keeps a clone,
/// so the context outlives everything created in it. The primary context is released
/// (`cuDevicePrimaryCtxRelease_v2`) when the last clone is dropped.
///
/// **Current context per thread.** The driver keeps a current context per host thread. Every
/// method of this crate that needs one calls [`Context::bind_to_thread`] first, which makes this
/// context current on the calling thread when it is not already (`cuCtxGetCurrent`, then
/// `cuCtxSetCurrent`), so a `Context` (or anything holding one) can be moved to, or shared with,
/// any thread.
///
/// `Send + Sync`: the handle is an opaque pointer owned by the driver, and the driver API is
/// thread-safe; nothing in `Context` is mutated after creation.
#[derive(Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
}

struct ContextInner {
    device: Device,
    raw: sys::CUcontext,
}

// SAFETY: `raw` is an opaque driver handle; the driver API may be called with it from any thread
// (the context is made current on the calling thread before use). It is never mutated.
unsafe impl Send for ContextInner {}
// SAFETY: as above; `&ContextInner` only hands out the handle value.
unsafe impl Sync for ContextInner {}

impl Drop for ContextInner {
    fn drop(&mut self) {
        // SAFETY: balances the cuDevicePrimaryCtxRetain of Context::new. Errors cannot be
        // returned from drop and are ignored.
        unsafe {
            let _ = sys::cuDevicePrimaryCtxRelease_v2(self.device.as_raw());
        }
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("device", &self.inner.device.ordinal())
            .field("raw", &self.inner.raw)
            .finish()
    }
}

impl Context {
    /// Retains the primary context of device `ordinal` (`cuInit`, `cuDeviceGet`,
    /// `cuDevicePrimaryCtxRetain`) and makes it current on the calling thread.
    ///
    /// [`crate::Error::NoDriver`] when no CUDA driver can be loaded, [`crate::Error::NoDevice`]
    /// when there is no device; both answer `true` to [`crate::Error::is_unavailable`].
    pub fn new(ordinal: usize) -> Result<Context> {
        ensure_driver()?;
        let device = Device::get(ordinal)?;
        let mut raw: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: out-pointer to a local; the device handle is valid.
        check("cuDevicePrimaryCtxRetain", unsafe {
            sys::cuDevicePrimaryCtxRetain(&mut raw, device.as_raw())
        })?;
        let ctx = Context {
            inner: Arc::new(ContextInner { device, raw }),
        };
        ctx.bind_to_thread()?;
        Ok(ctx)
    }

    /// Makes this context current on the calling thread if it is not already
    /// (`cuCtxGetCurrent`, then `cuCtxSetCurrent` only when it differs).
    ///
    /// Every method of this crate calls it, so it is only needed before calling
    /// `cudarc::driver::sys` directly.
    #[inline]
    pub fn bind_to_thread(&self) -> Result<()> {
        let mut cur: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: out-pointer to a local.
        check("cuCtxGetCurrent", unsafe { sys::cuCtxGetCurrent(&mut cur) })?;
        if cur != self.inner.raw {
            // SAFETY: the context is retained for as long as `self` lives.
            check("cuCtxSetCurrent", unsafe { sys::cuCtxSetCurrent(self.inner.raw) })?;
        }
        Ok(())
    }

    /// The device this context belongs to.
    pub fn device(&self) -> Device {
        self.inner.device
    }

    /// The device ordinal this context was created for.
    pub fn ordinal(&self) -> usize {
        self.inner.device.ordinal()
    }

    /// The raw `CUcontext`, for calls into `cudarc::driver::sys` (call
    /// [`Context::bind_to_thread`] first). It stays valid while any clone of `self` lives.
    pub fn as_raw(&self) -> sys::CUcontext {
        self.inner.raw
    }

    /// The device's properties ([`Device::properties`]).
    pub fn properties(&self) -> Result<DeviceProperties> {
        self.inner.device.properties()
    }

    /// Waits for all work in this context, on every stream (`cuCtxSynchronize`).
    pub fn synchronize(&self) -> Result<()> {
        self.bind_to_thread()?;
        // SAFETY: plain FFI call with this context current.
        check("cuCtxSynchronize", unsafe { sys::cuCtxSynchronize() })
    }

    /// `(free, total)` device memory in bytes (`cuMemGetInfo_v2`).
    pub fn mem_get_info(&self) -> Result<(usize, usize)> {
        self.bind_to_thread()?;
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: out-pointers to locals.
        check("cuMemGetInfo_v2", unsafe {
            sys::cuMemGetInfo_v2(&mut free, &mut total)
        })?;
        Ok((free, total))
    }

    /// Whether two handles are the same context (clones, or two retains of one primary context).
    pub fn same_context(&self, other: &Context) -> bool {
        self.inner.raw == other.inner.raw
    }

    // ---- allocation (memory.rs) ----

    /// Allocates device memory for `len` values of `T` (`cuMemAlloc_v2`; freed by
    /// `cuMemFree_v2` on drop). Contents are uninitialised (any bytes; `T: DeviceRepr` makes
    /// every value valid). `len == 0` makes no driver call and gives a null pointer. Out of
    /// memory is [`crate::Error::Driver`] named `CUDA_ERROR_OUT_OF_MEMORY`; a byte size that
    /// overflows is [`crate::Error::InvalidArgument`].
    pub fn alloc<T: DeviceRepr>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        self.alloc_impl(len)
    }

    /// [`Context::alloc`], then zero-fills the memory (`cuMemsetD8Async` on the legacy default
    /// stream and `cuStreamSynchronize` of it, so the zeros are there before the call returns).
    pub fn alloc_zeroed<T: DeviceRepr>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        self.alloc_zeroed_impl(len)
    }

    /// Pinned (page-locked) host memory for `len` values of `T` with default flags
    /// (`cuMemHostAlloc(.., 0)`, like `cudaMallocHost`; `cuMemFreeHost` on drop), zero-filled.
    pub fn alloc_pinned<T: DeviceRepr>(&self, len: usize) -> Result<PinnedBuffer<T>> {
        self.alloc_pinned_impl(len)
    }

    /// Pinned host memory for `len` values of `T` (`cuMemHostAlloc` with `flags.bits()`:
    /// `CU_MEMHOSTALLOC_PORTABLE`, `_DEVICEMAP`, `_WRITECOMBINED`), zero-filled by the host.
    /// `len == 0` makes no driver call.
    pub fn alloc_pinned_with_flags<T: DeviceRepr>(&self, len: usize, flags: PinnedFlags) -> Result<PinnedBuffer<T>> {
        self.alloc_pinned_with_flags_impl(len, flags)
    }

    /// Page-locks `host` in place (`cuMemHostRegister_v2`, flags 0) until the returned guard
    /// drops (`cuMemHostUnregister`). An empty slice makes no driver call. Registering memory
    /// that is already registered is `CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED`.
    pub fn register_host<'a, T: DeviceRepr>(&self, host: &'a mut [T]) -> Result<RegisteredHost<'a, T>> {
        self.register_host_impl(host)
    }

    /// Managed memory for `len` values of `T` (`cuMemAllocManaged` with `CU_MEM_ATTACH_GLOBAL`;
    /// `cuMemFree_v2` on drop), zero-filled on the device (`cuMemsetD8Async` on the legacy
    /// default stream, then `cuStreamSynchronize`) so the host never touches it while a kernel
    /// may run. `len == 0` makes no driver call.
    pub fn alloc_managed<T: DeviceRepr>(&self, len: usize) -> Result<ManagedBuffer<T>> {
        self.alloc_managed_impl(len)
    }

    // ---- streams and events (stream.rs) ----

    /// A new stream (`cuStreamCreate` with `CU_STREAM_NON_BLOCKING`; `cuStreamDestroy_v2` on
    /// drop).
    pub fn new_stream(&self) -> Result<Stream> {
        self.new_stream_impl()
    }

    /// A new event for ordering only (`cuEventCreate` with `CU_EVENT_DISABLE_TIMING`, the
    /// cheapest kind; `cuEventDestroy_v2` on drop); [`Event::elapsed_ms`] refuses it.
    pub fn new_event(&self) -> Result<Event> {
        self.new_event_impl()
    }

    /// A new event that records timestamps (`cuEventCreate` with `CU_EVENT_DEFAULT`), for
    /// [`Event::elapsed_ms`].
    pub fn new_timing_event(&self) -> Result<Event> {
        self.new_timing_event_impl()
    }

    // ---- kernels (kernel.rs) ----

    /// Compiles CUDA C++ to PTX with NVRTC for this device's architecture
    /// (`nvrtcCompileProgram` with `--gpu-architecture=sm_XY` from its compute capability,
    /// retried with `compute_XY` if NVRTC rejects it); see [`Ptx::compile`]. A compilation error
    /// is [`crate::Error::Nvrtc`] carrying the NVRTC program log; no NVRTC is
    /// [`crate::Error::NoNvrtc`].
    pub fn compile_ptx(&self, src: &str) -> Result<Ptx> {
        self.compile_ptx_impl(src)
    }

    /// [`Context::compile_ptx`] with extra NVRTC options (e.g. `"-lineinfo"`,
    /// `"--use_fast_math"`); an option naming an architecture replaces the automatic one.
    pub fn compile_ptx_with_options(&self, src: &str, options: &[&str]) -> Result<Ptx> {
        self.compile_ptx_with_options_impl(src, options)
    }

    /// Loads PTX into this context (`cuModuleLoadData` on a NUL-terminated copy; the driver
    /// JIT-compiles it; `cuModuleUnload` when the module and its kernels are dropped). Invalid
    /// PTX is a [`crate::Error::Driver`] such as `CUDA_ERROR_INVALID_PTX`; PTX newer than the
    /// driver is `CUDA_ERROR_UNSUPPORTED_PTX_VERSION`.
    pub fn load_module(&self, ptx: &Ptx) -> Result<Module> {
        self.load_module_impl(ptx)
    }

    /// [`Context::compile_ptx`] then [`Context::load_module`].
    pub fn load_cuda(&self, src: &str) -> Result<Module> {
        self.load_cuda_impl(src)
    }

    // ---- virtual memory management (vmm.rs) ----

    /// Whether this device supports VMM (`cuMemCreate`, `cuMemMap`):
    /// `CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED`.
    pub fn vmm_supported(&self) -> Result<bool> {
        self.vmm_supported_impl()
    }

    /// The minimum granularity of VMM sizes, offsets and addresses for pinned device memory on
    /// this device (`cuMemGetAllocationGranularity` with `CU_MEM_ALLOC_GRANULARITY_MINIMUM`),
    /// typically 2 MiB. [`crate::Error::Unsupported`] without VMM.
    pub fn vmm_granularity(&self) -> Result<usize> {
        self.vmm_granularity_impl()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn context_is_send_sync() {
        assert_send_sync::<Context>();
    }

    /// Passes on any machine: without a driver or device the error must say so (and nothing may
    /// panic); with a GPU it must succeed.
    #[test]
    fn context_new_never_panics() {
        let r = std::panic::catch_unwind(|| Context::new(0));
        let r = r.expect("Context::new(0) panicked");
        match r {
            Ok(ctx) => {
                assert!(!ctx.as_raw().is_null());
                ctx.synchronize().unwrap();
            }
            Err(e) => {
                assert!(
                    e.is_unavailable(),
                    "without CUDA, Context::new must fail with NoDriver/NoDevice, got {e:?}"
                );
                match &e {
                    crate::Error::NoDriver { reason } => assert!(!reason.trim().is_empty()),
                    crate::Error::NoDevice => {}
                    other => panic!("unexpected {other:?}"),
                }
                assert!(!e.to_string().trim().is_empty());
                // The outcome is cached: asking again gives the same error, still no panic.
                assert_eq!(Context::new(0).unwrap_err(), e);
                if matches!(e, crate::Error::NoDriver { .. }) {
                    assert_eq!(crate::init().unwrap_err(), e);
                    assert_eq!(crate::device_count().unwrap_err(), e);
                    assert_eq!(crate::driver_version().unwrap_err(), e);
                }
            }
        }
    }
}
