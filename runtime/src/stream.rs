//! Streams and events: `cuStreamCreate`, `cuEventCreate`, the async copies and memsets, and
//! their synchronization (`cuStreamSynchronize`, `cuEventSynchronize`, `cuStreamWaitEvent`).
//!
//! [`Stream::launch`] delegates to `kernel.rs`.

use std::ffi::c_void;
use std::fmt;

use cudarc::driver::sys;

use crate::context::Context;
use crate::driver::check;
use crate::error::{Error, Result};
use crate::kernel::{Kernel, KernelArg, LaunchConfig, launch_kernel};
use crate::memory::{DeviceBuffer, DeviceMemory, DeviceRepr, byte_len};

/// The check every copy makes before anything is enqueued: destination and source must have the
/// same number of elements, else [`Error::LengthMismatch`] naming `call`.
pub(crate) fn check_copy_lengths(call: &'static str, dst_len: usize, src_len: usize) -> Result<()> {
    if dst_len == src_len {
        Ok(())
    } else {
        Err(Error::LengthMismatch { call, dst_len, src_len })
    }
}

/// The element count of a `cuMemsetD32` over `num_bytes` bytes, or [`Error::InvalidArgument`]
/// when the size is not a multiple of 4.
pub(crate) fn d32_count(call: &'static str, num_bytes: usize) -> Result<usize> {
    if num_bytes.is_multiple_of(4) {
        Ok(num_bytes / 4)
    } else {
        Err(Error::invalid(
            call,
            format!("{num_bytes} bytes is not a whole number of 32-bit words"),
        ))
    }
}

/// A CUDA stream (`cuStreamCreate` with `CU_STREAM_NON_BLOCKING`, destroyed with
/// `cuStreamDestroy_v2` on drop): work enqueued on it runs in order, concurrently with other
/// streams, and does not synchronize with the legacy default stream.
///
/// `Send + Sync`: the handle is an opaque driver object that may be used from any thread
/// (every method binds the context first); the driver serialises enqueues itself.
pub struct Stream {
    raw: sys::CUstream,
    ctx: Context,
}

// SAFETY: see the type docs; the driver API is thread-safe and `raw` is never mutated.
unsafe impl Send for Stream {}
// SAFETY: as above.
unsafe impl Sync for Stream {}

impl Drop for Stream {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: owned stream. The driver finishes pending work before releasing it.
            // Errors are ignored.
            unsafe {
                let _ = sys::cuStreamDestroy_v2(self.raw);
            }
        }
    }
}

impl fmt::Debug for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stream").field("raw", &self.raw).finish()
    }
}

/// A CUDA event (`cuEventCreate`, destroyed with `cuEventDestroy_v2` on drop): a point in a
/// stream's work that other streams and the host can wait for.
///
/// `Send + Sync` for the same reasons as [`Stream`].
pub struct Event {
    raw: sys::CUevent,
    timing: bool,
    ctx: Context,
}

// SAFETY: see Stream.
unsafe impl Send for Event {}
// SAFETY: see Stream.
unsafe impl Sync for Event {}

impl Drop for Event {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: owned event. Errors are ignored.
            unsafe {
                let _ = sys::cuEventDestroy_v2(self.raw);
            }
        }
    }
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("raw", &self.raw)
            .field("timing", &self.timing)
            .finish()
    }
}

impl Context {
    /// Implementation of [`Context::new_stream`].
    pub(crate) fn new_stream_impl(&self) -> Result<Stream> {
        self.bind_to_thread()?;
        let mut raw: sys::CUstream = std::ptr::null_mut();
        // SAFETY: out-pointer to a local.
        check("cuStreamCreate", unsafe {
            sys::cuStreamCreate(&mut raw, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32)
        })?;
        Ok(Stream { raw, ctx: self.clone() })
    }

    fn create_event(&self, flags: sys::CUevent_flags, timing: bool) -> Result<Event> {
        self.bind_to_thread()?;
        let mut raw: sys::CUevent = std::ptr::null_mut();
        // SAFETY: out-pointer to a local.
        check("cuEventCreate", unsafe { sys::cuEventCreate(&mut raw, flags as u32) })?;
        Ok(Event {
            raw,
            timing,
            ctx: self.clone(),
        })
    }

    /// Implementation of [`Context::new_event`].
    pub(crate) fn new_event_impl(&self) -> Result<Event> {
        self.create_event(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING, false)
    }

    /// Implementation of [`Context::new_timing_event`].
    pub(crate) fn new_timing_event_impl(&self) -> Result<Event> {
        self.create_event(sys::CUevent_flags::CU_EVENT_DEFAULT, true)
    }
}

impl Stream {
    /// The context the stream belongs to.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The raw `CUstream`, for calls into `cudarc::driver::sys`; valid while `self` lives.
    pub fn as_raw(&self) -> sys::CUstream {
        self.raw
    }

    // ---- raw enqueues (lengths already checked) ----

    unsafe fn htod_raw(&self, dst: sys::CUdeviceptr, src: *const c_void, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        self.ctx.bind_to_thread()?;
        // SAFETY: the caller guarantees both ranges are valid for `bytes` bytes until the copy
        // completes.
        check("cuMemcpyHtoDAsync_v2", unsafe {
            sys::cuMemcpyHtoDAsync_v2(dst, src, bytes, self.raw)
        })
    }

    unsafe fn dtoh_raw(&self, dst: *mut c_void, src: sys::CUdeviceptr, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        self.ctx.bind_to_thread()?;
        // SAFETY: as htod_raw.
        check("cuMemcpyDtoHAsync_v2", unsafe {
            sys::cuMemcpyDtoHAsync_v2(dst, src, bytes, self.raw)
        })
    }

    // ---- copies ----

    /// Enqueues a copy of `src` (host) into `dst` (device) on this stream
    /// (`cuMemcpyHtoDAsync_v2`) and returns, possibly before the copy has run.
    ///
    /// `src` may be any host memory. From pinned memory ([`crate::PinnedBuffer`],
    /// [`crate::RegisteredHost`]) the call returns at once and the copy overlaps other work; from
    /// pageable memory (`Vec`, arrays, boxes) the driver stages it and the call blocks the host
    /// for most of the transfer, exactly as in CUDA (`cuda_lint::pageable_async_copy`).
    ///
    /// [`Error::LengthMismatch`] when `dst.len() != src.len()`, before anything is enqueued.
    ///
    /// # Safety
    ///
    /// `src` must stay valid (not freed, not moved) and must not be written until the copy has
    /// completed: synchronize this stream ([`Stream::synchronize`]), or an event recorded after
    /// the copy, first.
    pub unsafe fn copy_htod_async<T: DeviceRepr>(&self, dst: &mut DeviceBuffer<T>, src: &[T]) -> Result<()> {
        check_copy_lengths("cuMemcpyHtoDAsync_v2", dst.len(), src.len())?;
        let bytes = byte_len::<T>("cuMemcpyHtoDAsync_v2", src.len())?;
        // SAFETY: lengths match; the caller upholds the lifetime contract.
        unsafe { self.htod_raw(dst.ptr, src.as_ptr().cast(), bytes) }
    }

    /// Enqueues a copy of `src` (device) into `dst` (host) on this stream
    /// (`cuMemcpyDtoHAsync_v2`) and returns, possibly before the copy has run. Pageable `dst`
    /// blocks the host, as in CUDA.
    ///
    /// [`Error::LengthMismatch`] when `dst.len() != src.len()`, before anything is enqueued.
    ///
    /// # Safety
    ///
    /// `dst` must stay valid and must be neither read nor written until the copy has completed
    /// (synchronize this stream, or an event recorded after the copy, first).
    pub unsafe fn copy_dtoh_async<T: DeviceRepr>(&self, dst: &mut [T], src: &DeviceBuffer<T>) -> Result<()> {
        check_copy_lengths("cuMemcpyDtoHAsync_v2", dst.len(), src.len())?;
        let bytes = byte_len::<T>("cuMemcpyDtoHAsync_v2", dst.len())?;
        // SAFETY: lengths match; the caller upholds the lifetime contract.
        unsafe { self.dtoh_raw(dst.as_mut_ptr().cast(), src.ptr, bytes) }
    }

    /// Enqueues a device-to-device copy of `src` into `dst` on this stream
    /// (`cuMemcpyDtoDAsync_v2`). [`Error::LengthMismatch`] when the lengths differ.
    pub fn copy_dtod_async<T: DeviceRepr>(&self, dst: &mut DeviceBuffer<T>, src: &DeviceBuffer<T>) -> Result<()> {
        check_copy_lengths("cuMemcpyDtoDAsync_v2", dst.len(), src.len())?;
        let bytes = byte_len::<T>("cuMemcpyDtoDAsync_v2", src.len())?;
        if bytes == 0 {
            return Ok(());
        }
        self.ctx.bind_to_thread()?;
        // SAFETY: both are live device allocations of `bytes` bytes owned by the buffers.
        check("cuMemcpyDtoDAsync_v2", unsafe {
            sys::cuMemcpyDtoDAsync_v2(dst.ptr, src.ptr, bytes, self.raw)
        })
    }

    /// Enqueues setting every byte of `dst` to `value` (`cuMemsetD8Async`).
    ///
    /// For a [`crate::ManagedBuffer`] the host must not access it until this stream is
    /// synchronized (`cuda_lint::missing_sync`).
    pub fn memset_d8_async(&self, dst: &mut impl DeviceMemory, value: u8) -> Result<()> {
        let bytes = dst.num_bytes();
        if bytes == 0 {
            return Ok(());
        }
        self.ctx.bind_to_thread()?;
        // SAFETY: DeviceMemory guarantees `bytes` valid bytes at the pointer.
        check("cuMemsetD8Async", unsafe {
            sys::cuMemsetD8Async(dst.device_ptr().as_raw(), value, bytes, self.raw)
        })
    }

    /// Enqueues setting every 32-bit word of `dst` to `value` (`cuMemsetD32Async`).
    /// [`Error::InvalidArgument`] when `dst.num_bytes()` is not a multiple of 4.
    pub fn memset_d32_async(&self, dst: &mut impl DeviceMemory, value: u32) -> Result<()> {
        let words = d32_count("cuMemsetD32Async", dst.num_bytes())?;
        if words == 0 {
            return Ok(());
        }
        self.ctx.bind_to_thread()?;
        // SAFETY: DeviceMemory guarantees `4 * words` valid bytes at the (256-byte aligned)
        // pointer.
        check("cuMemsetD32Async", unsafe {
            sys::cuMemsetD32Async(dst.device_ptr().as_raw(), value, words, self.raw)
        })
    }

    // ---- blocking forms ----

    /// [`Stream::copy_htod_async`], then [`Stream::synchronize`]: when it returns, the copy is
    /// done and `src` is free again.
    pub fn copy_htod<T: DeviceRepr>(&self, dst: &mut DeviceBuffer<T>, src: &[T]) -> Result<()> {
        // SAFETY: synchronized before `src`'s borrow ends.
        unsafe { self.copy_htod_async(dst, src)? };
        self.synchronize()
    }

    /// [`Stream::copy_dtoh_async`], then [`Stream::synchronize`].
    pub fn copy_dtoh<T: DeviceRepr>(&self, dst: &mut [T], src: &DeviceBuffer<T>) -> Result<()> {
        // SAFETY: synchronized before `dst`'s borrow ends.
        unsafe { self.copy_dtoh_async(dst, src)? };
        self.synchronize()
    }

    /// [`Stream::copy_dtod_async`], then [`Stream::synchronize`].
    pub fn copy_dtod<T: DeviceRepr>(&self, dst: &mut DeviceBuffer<T>, src: &DeviceBuffer<T>) -> Result<()> {
        self.copy_dtod_async(dst, src)?;
        self.synchronize()
    }

    /// [`Stream::memset_d8_async`], then [`Stream::synchronize`].
    pub fn memset_d8(&self, dst: &mut impl DeviceMemory, value: u8) -> Result<()> {
        self.memset_d8_async(dst, value)?;
        self.synchronize()
    }

    /// [`Stream::memset_d32_async`], then [`Stream::synchronize`].
    pub fn memset_d32(&self, dst: &mut impl DeviceMemory, value: u32) -> Result<()> {
        self.memset_d32_async(dst, value)?;
        self.synchronize()
    }

    /// A new device buffer holding a copy of `src` (`cuMemAlloc_v2`, `cuMemcpyHtoDAsync_v2`,
    /// `cuStreamSynchronize`).
    pub fn clone_htod<T: DeviceRepr>(&self, src: &[T]) -> Result<DeviceBuffer<T>> {
        let mut dst = self.ctx.alloc::<T>(src.len())?;
        self.copy_htod(&mut dst, src)?;
        Ok(dst)
    }

    /// A new `Vec` holding a copy of `src` (`cuMemcpyDtoHAsync_v2` into pageable memory, then
    /// `cuStreamSynchronize`).
    #[cfg_attr(
        cuda_lint,
        allow(
            cuda_lint::pageable_async_copy,
            reason = "a blocking copy into a new Vec by contract; callers wanting overlap use pinned memory"
        )
    )]
    pub fn clone_dtoh<T: DeviceRepr>(&self, src: &DeviceBuffer<T>) -> Result<Vec<T>> {
        let len = src.len();
        let bytes = byte_len::<T>("cuMemcpyDtoHAsync_v2", len)?;
        let mut v = Vec::<T>::with_capacity(len);
        if bytes > 0 {
            // SAFETY: the Vec's spare capacity holds `bytes` bytes; synchronized below before
            // the Vec is touched or dropped.
            unsafe { self.dtoh_raw(v.as_mut_ptr().cast(), src.ptr, bytes)? };
            if let Err(e) = self.synchronize() {
                // The copy may not have finished: never free memory it could still write.
                std::mem::forget(v);
                return Err(e);
            }
        }
        // SAFETY: the copy wrote all `len` elements (every bit pattern is a valid T).
        unsafe { v.set_len(len) };
        Ok(v)
    }

    // ---- kernels ----

    /// Enqueues `kernel` on this stream with `cfg` and `args` (`cuLaunchKernel`), e.g.
    /// `stream.launch(&k, cfg, &[&buf_a, &buf_b, &n])`.
    ///
    /// Each argument is passed by [`KernelArg::param_ptr`]; the driver copies the values before
    /// `cuLaunchKernel` returns. The kernel runs asynchronously.
    ///
    /// # Safety
    ///
    /// As for a CUDA `<<<...>>>` launch: `args` must match the kernel's parameters in number,
    /// order and type; the kernel must stay within the memory it is given; that memory must stay
    /// allocated until the kernel has completed; and the host must not access memory the kernel
    /// writes (managed, mapped pinned) or reads-and-another-writes until it has synchronized
    /// (`cuda_lint::missing_sync`). Two VMM mappings of one physical allocation used by one
    /// kernel need `fence.proxy.alias` (`cuda_lint::unfenced_vmm_alias`).
    pub unsafe fn launch(&self, kernel: &Kernel, cfg: LaunchConfig, args: &[&dyn KernelArg]) -> Result<()> {
        // SAFETY: the caller upholds the contract above.
        unsafe { launch_kernel(self, kernel, cfg, args) }
    }

    // ---- synchronization ----

    /// Blocks the host until all work enqueued on this stream has completed
    /// (`cuStreamSynchronize`).
    pub fn synchronize(&self) -> Result<()> {
        self.ctx.bind_to_thread()?;
        // SAFETY: owned stream.
        check("cuStreamSynchronize", unsafe { sys::cuStreamSynchronize(self.raw) })
    }

    /// Whether all work enqueued on this stream has completed (`cuStreamQuery`:
    /// `CUDA_SUCCESS` is `true`, `CUDA_ERROR_NOT_READY` is `false`). Does not block.
    pub fn query(&self) -> Result<bool> {
        self.ctx.bind_to_thread()?;
        // SAFETY: owned stream.
        match unsafe { sys::cuStreamQuery(self.raw) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            e => check("cuStreamQuery", e).map(|()| false),
        }
    }

    /// Records `event` at the current end of this stream (`cuEventRecord`): it completes when
    /// all work enqueued so far has.
    pub fn record_event(&self, event: &Event) -> Result<()> {
        self.ctx.bind_to_thread()?;
        // SAFETY: both handles are live.
        check("cuEventRecord", unsafe { sys::cuEventRecord(event.raw, self.raw) })
    }

    /// Makes all future work on this stream wait until `event` completes (`cuStreamWaitEvent`),
    /// without blocking the host: the ordering edge between two streams.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        self.ctx.bind_to_thread()?;
        // SAFETY: both handles are live.
        check("cuStreamWaitEvent", unsafe {
            sys::cuStreamWaitEvent(self.raw, event.raw, 0)
        })
    }
}

impl Event {
    /// Blocks the host until the work recorded before this event has completed
    /// (`cuEventSynchronize`). An event never recorded completes at once.
    pub fn synchronize(&self) -> Result<()> {
        self.ctx.bind_to_thread()?;
        // SAFETY: owned event.
        check("cuEventSynchronize", unsafe { sys::cuEventSynchronize(self.raw) })
    }

    /// Whether the work recorded before this event has completed (`cuEventQuery`). Does not
    /// block.
    pub fn query(&self) -> Result<bool> {
        self.ctx.bind_to_thread()?;
        // SAFETY: owned event.
        match unsafe { sys::cuEventQuery(self.raw) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            e => check("cuEventQuery", e).map(|()| false),
        }
    }

    /// Milliseconds between `start` and this event (`cuEventElapsedTime(start, self)`), both
    /// recorded and completed. Both must come from [`Context::new_timing_event`]
    /// ([`Error::InvalidArgument`] otherwise); resolution is about half a microsecond.
    pub fn elapsed_ms(&self, start: &Event) -> Result<f32> {
        if !self.timing || !start.timing {
            return Err(Error::invalid(
                "cuEventElapsedTime_v2",
                "both events must be created with Context::new_timing_event \
                 (new_event uses CU_EVENT_DISABLE_TIMING)",
            ));
        }
        self.ctx.bind_to_thread()?;
        let mut ms = 0f32;
        // SAFETY: out-pointer to a local; both events are live.
        check("cuEventElapsedTime_v2", unsafe {
            sys::cuEventElapsedTime_v2(&mut ms, start.raw, self.raw)
        })?;
        Ok(ms)
    }

    /// Whether this event records timestamps ([`Context::new_timing_event`]).
    pub fn is_timing(&self) -> bool {
        self.timing
    }

    /// The context the event belongs to.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The raw `CUevent`, for calls into `cudarc::driver::sys`; valid while `self` lives.
    pub fn as_raw(&self) -> sys::CUevent {
        self.raw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_check() {
        assert!(check_copy_lengths("cuMemcpyHtoDAsync_v2", 3, 3).is_ok());
        assert!(check_copy_lengths("cuMemcpyHtoDAsync_v2", 0, 0).is_ok());
        assert_eq!(
            check_copy_lengths("cuMemcpyDtoHAsync_v2", 4, 5).unwrap_err(),
            Error::LengthMismatch {
                call: "cuMemcpyDtoHAsync_v2",
                dst_len: 4,
                src_len: 5
            }
        );
    }

    #[test]
    fn memset_d32_needs_whole_words() {
        assert_eq!(d32_count("cuMemsetD32Async", 16).unwrap(), 4);
        assert_eq!(d32_count("cuMemsetD32Async", 0).unwrap(), 0);
        assert!(matches!(
            d32_count("cuMemsetD32Async", 6),
            Err(Error::InvalidArgument { .. })
        ));
    }

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn streams_and_events_are_send_sync() {
        assert_send_sync::<Stream>();
        assert_send_sync::<Event>();
    }
}
