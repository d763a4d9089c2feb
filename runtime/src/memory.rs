//! Memory: device (`cuMemAlloc_v2`), pinned host (`cuMemHostAlloc`), registered host
//! (`cuMemHostRegister_v2`) and managed (`cuMemAllocManaged`) allocations, and the traits that
//! describe what may live in them.
//!
//! Zero-length allocations make no driver call: their device pointer is null
//! ([`DevicePtr::null`]), their host slice is empty, and copies and memsets of zero bytes make no
//! driver call either. A length whose size in bytes overflows `usize` is
//! [`Error::InvalidArgument`].

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use cudarc::driver::sys;

use crate::context::Context;
use crate::driver::check;
use crate::error::{Error, Result};

/// Plain-old-data element types that may be copied to and from device memory byte for byte.
///
/// # Safety
///
/// Implement it only for `Copy` types for which **every bit pattern is a valid value** (the
/// device, a memset or a copy may write any bytes into them, and pinned and managed buffers start
/// zero-filled), that contain no pointers or references into host memory, and whose layout is the
/// one device code expects (`#[repr(C)]` or `#[repr(transparent)]` for structs). Integers,
/// floats, [`DevicePtr`] and arrays of such types qualify; `bool`, `char`, references and enums
/// do not (not every bit pattern is valid).
pub unsafe trait DeviceRepr: Copy + 'static {}

macro_rules! device_repr {
    ($($t:ty),* $(,)?) => { $(
        // SAFETY: every bit pattern is a valid value of this primitive type.
        unsafe impl DeviceRepr for $t {}
    )* };
}
device_repr!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);

// SAFETY: an array of DeviceRepr elements has no padding between elements and every bit pattern
// of it is valid.
unsafe impl<T: DeviceRepr, const N: usize> DeviceRepr for [T; N] {}

/// A device address (`CUdeviceptr`, a 64-bit integer). `Copy`; owns nothing.
///
/// It is also a valid kernel argument (a `T*` parameter) and a valid device element type (arrays
/// of pointers in device memory).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct DevicePtr(sys::CUdeviceptr);

// SAFETY: a transparent u64.
unsafe impl DeviceRepr for DevicePtr {}

impl DevicePtr {
    /// The null device pointer (`0`), e.g. the pointer of a zero-length buffer.
    pub const fn null() -> DevicePtr {
        DevicePtr(0)
    }

    /// Wraps a raw `CUdeviceptr`.
    pub const fn from_raw(raw: sys::CUdeviceptr) -> DevicePtr {
        DevicePtr(raw)
    }

    /// The raw `CUdeviceptr`, for calls into `cudarc::driver::sys`.
    pub const fn as_raw(self) -> sys::CUdeviceptr {
        self.0
    }

    /// Whether this is the null pointer.
    pub const fn is_null(self) -> bool {
        self.0 == 0
    }

    /// This address plus `bytes` (wrapping on overflow; nothing checks that the result stays
    /// inside an allocation, exactly like pointer arithmetic on a `CUdeviceptr`).
    pub const fn offset_bytes(self, bytes: usize) -> DevicePtr {
        DevicePtr(self.0.wrapping_add(bytes as u64))
    }
}

impl fmt::Debug for DevicePtr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DevicePtr({:#x})", self.0)
    }
}

impl fmt::Display for DevicePtr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// Memory that kernels, memsets and copies address by device pointer: [`DeviceBuffer`],
/// [`ManagedBuffer`] and [`crate::Mapping`].
///
/// # Safety
///
/// `device_ptr()` must be the start of an allocation (or mapping) of at least `num_bytes()` bytes
/// that stays valid while `self` lives, owned by `self` (so that `&mut self` means nobody else
/// writes it through this crate). A zero `num_bytes()` may come with a null pointer.
pub unsafe trait DeviceMemory {
    /// The device address of the first byte.
    fn device_ptr(&self) -> DevicePtr;
    /// The size in bytes.
    fn num_bytes(&self) -> usize;
}

/// `len * size_of::<T>()`, or [`Error::InvalidArgument`] when it overflows.
pub(crate) fn byte_len<T>(call: &'static str, len: usize) -> Result<usize> {
    len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
        Error::invalid(
            call,
            format!("{len} elements of {} bytes overflow usize", std::mem::size_of::<T>()),
        )
    })
}

/// `cuMemsetD8Async(ptr, 0, bytes)` on the legacy default stream, then `cuStreamSynchronize` of
/// it: zero-fills a fresh allocation before anyone can see it.
fn zero_fill_sync(ctx: &Context, ptr: sys::CUdeviceptr, bytes: usize) -> Result<()> {
    ctx.bind_to_thread()?;
    // SAFETY: `ptr..ptr+bytes` is a fresh allocation of this context; the null stream is valid.
    unsafe {
        check(
            "cuMemsetD8Async",
            sys::cuMemsetD8Async(ptr, 0, bytes, std::ptr::null_mut()),
        )?;
        check("cuStreamSynchronize", sys::cuStreamSynchronize(std::ptr::null_mut()))
    }
}

// ---------------------------------------------------------------------------------------------
// DeviceBuffer
// ---------------------------------------------------------------------------------------------

/// Device memory for `len` values of `T` (`cuMemAlloc_v2`; on drop, `cuCtxSynchronize` then
/// `cuMemFree_v2`: the work that may still use it is waited for, which `cuMemFree` does not promise).
///
/// The host cannot read it: use the copies of [`crate::Stream`]. `Send`/`Sync` when `T` is: the
/// buffer is an address plus a [`Context`], and writes go through `&mut self`.
pub struct DeviceBuffer<T: DeviceRepr> {
    pub(crate) ptr: sys::CUdeviceptr,
    len: usize,
    ctx: Context,
    _marker: PhantomData<T>,
}

impl<T: DeviceRepr> DeviceBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes (`len * size_of::<T>()`).
    pub fn num_bytes(&self) -> usize {
        self.len.saturating_mul(std::mem::size_of::<T>())
    }

    /// The device address of element 0 (null for an empty buffer), for kernels and interop.
    pub fn device_ptr(&self) -> DevicePtr {
        DevicePtr(self.ptr)
    }

    /// The context the memory belongs to.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Takes ownership of device memory allocated elsewhere; it is freed with `cuMemFree_v2` when
    /// the buffer drops.
    ///
    /// # Safety
    ///
    /// `ptr` must be null with a zero byte size, or come from `cuMemAlloc_v2` (or
    /// [`DeviceBuffer::into_raw`]) in `ctx`, be at least `len * size_of::<T>()` bytes long, not
    /// be freed by anyone else, and not be owned by another `DeviceBuffer`.
    pub unsafe fn from_raw_parts(ctx: &Context, ptr: DevicePtr, len: usize) -> DeviceBuffer<T> {
        DeviceBuffer {
            ptr: ptr.as_raw(),
            len,
            ctx: ctx.clone(),
            _marker: PhantomData,
        }
    }

    /// Gives up ownership: returns the device pointer (note [`DeviceBuffer::len`] first), which
    /// is no longer freed. Pass it back to [`DeviceBuffer::from_raw_parts`] or `cuMemFree_v2`.
    pub fn into_raw(self) -> DevicePtr {
        let p = DevicePtr(self.ptr);
        let mut this = std::mem::ManuallyDrop::new(self);
        // SAFETY: `this` is never used or dropped again; drop its Context clone only.
        unsafe { std::ptr::drop_in_place(&mut this.ctx) };
        p
    }
}

impl<T: DeviceRepr> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        if self.ptr != 0 && self.ctx.bind_to_thread().is_ok() {
            // `cuMemFree` "may perform implicit synchronization", no more: wait for the work
            // that may still use the memory first, as the type promises.
            // SAFETY: owned allocation of this context. Errors are ignored (cannot return them).
            unsafe {
                let _ = sys::cuCtxSynchronize();
                let _ = sys::cuMemFree_v2(self.ptr);
            }
        }
    }
}

impl<T: DeviceRepr> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("ptr", &DevicePtr(self.ptr))
            .field("len", &self.len)
            .field("elem", &std::any::type_name::<T>())
            .finish()
    }
}

// SAFETY: the pointer and size describe the allocation this buffer owns.
unsafe impl<T: DeviceRepr> DeviceMemory for DeviceBuffer<T> {
    fn device_ptr(&self) -> DevicePtr {
        DevicePtr(self.ptr)
    }
    fn num_bytes(&self) -> usize {
        DeviceBuffer::num_bytes(self)
    }
}

impl Context {
    /// Implementation of [`Context::alloc`].
    pub(crate) fn alloc_impl<T: DeviceRepr>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = byte_len::<T>("cuMemAlloc_v2", len)?;
        let mut ptr: sys::CUdeviceptr = 0;
        if bytes > 0 {
            self.bind_to_thread()?;
            // SAFETY: out-pointer to a local.
            check("cuMemAlloc_v2", unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes) })?;
        }
        Ok(DeviceBuffer {
            ptr,
            len,
            ctx: self.clone(),
            _marker: PhantomData,
        })
    }

    /// Implementation of [`Context::alloc_zeroed`].
    pub(crate) fn alloc_zeroed_impl<T: DeviceRepr>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let buf = self.alloc::<T>(len)?;
        if buf.ptr != 0 {
            zero_fill_sync(self, buf.ptr, buf.num_bytes())?;
        }
        Ok(buf)
    }
}

// ---------------------------------------------------------------------------------------------
// PinnedBuffer
// ---------------------------------------------------------------------------------------------

/// Flags of a pinned host allocation (`cuMemHostAlloc`). The default (all false) is
/// `cuMemAllocHost` / `cudaMallocHost`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PinnedFlags {
    /// `CU_MEMHOSTALLOC_PORTABLE`: pinned for every context, not only this one.
    pub portable: bool,
    /// `CU_MEMHOSTALLOC_DEVICEMAP`: mapped into the device address space; kernels can use it
    /// through [`PinnedBuffer::mapped_device_ptr`].
    pub device_mapped: bool,
    /// `CU_MEMHOSTALLOC_WRITECOMBINED`: write-combined: fast host writes and H2D transfers, very
    /// slow host reads.
    pub write_combined: bool,
}

impl PinnedFlags {
    /// The `Flags` argument of `cuMemHostAlloc`.
    pub const fn bits(self) -> u32 {
        let mut b = 0;
        if self.portable {
            b |= sys::CU_MEMHOSTALLOC_PORTABLE;
        }
        if self.device_mapped {
            b |= sys::CU_MEMHOSTALLOC_DEVICEMAP;
        }
        if self.write_combined {
            b |= sys::CU_MEMHOSTALLOC_WRITECOMBINED;
        }
        b
    }

    /// The flags for a `cuMemHostAlloc` `Flags` value; `None` when it has bits this type does
    /// not know.
    pub const fn from_bits(bits: u32) -> Option<PinnedFlags> {
        let known = sys::CU_MEMHOSTALLOC_PORTABLE | sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_WRITECOMBINED;
        if bits & !known != 0 {
            return None;
        }
        Some(PinnedFlags {
            portable: bits & sys::CU_MEMHOSTALLOC_PORTABLE != 0,
            device_mapped: bits & sys::CU_MEMHOSTALLOC_DEVICEMAP != 0,
            write_combined: bits & sys::CU_MEMHOSTALLOC_WRITECOMBINED != 0,
        })
    }
}

/// Page-locked host memory for `len` values of `T` (`cuMemHostAlloc`, freed with
/// `cuMemFreeHost` on drop), zero-filled, readable and writable by the host through
/// `Deref<Target = [T]>` / `DerefMut`.
///
/// Async copies from and to it do not block the host and overlap kernels. `Send`/`Sync` when `T`
/// is, like `Box<[T]>`: it owns its memory and hands it out only through borrows.
pub struct PinnedBuffer<T: DeviceRepr> {
    ptr: NonNull<T>,
    len: usize,
    allocated: bool,
    flags: PinnedFlags,
    ctx: Context,
}

// SAFETY: owns its allocation like Box<[T]>; shared access only through &self.
unsafe impl<T: DeviceRepr + Send> Send for PinnedBuffer<T> {}
// SAFETY: as above.
unsafe impl<T: DeviceRepr + Sync> Sync for PinnedBuffer<T> {}

impl<T: DeviceRepr> PinnedBuffer<T> {
    /// The flags it was allocated with.
    pub fn flags(&self) -> PinnedFlags {
        self.flags
    }

    /// The context it was allocated in.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Size in bytes.
    pub fn num_bytes(&self) -> usize {
        self.len.saturating_mul(std::mem::size_of::<T>())
    }

    /// The device address of this host memory (`cuMemHostGetDevicePointer_v2`), for kernels that
    /// read or write it directly over the bus. Only for buffers allocated with
    /// [`PinnedFlags::device_mapped`] ([`Error::InvalidArgument`] otherwise); null for an empty
    /// buffer.
    pub fn mapped_device_ptr(&self) -> Result<DevicePtr> {
        if !self.flags.device_mapped {
            return Err(Error::invalid(
                "cuMemHostGetDevicePointer_v2",
                "the pinned buffer was not allocated with PinnedFlags { device_mapped: true, .. }",
            ));
        }
        if !self.allocated {
            return Ok(DevicePtr::null());
        }
        self.ctx.bind_to_thread()?;
        let mut d: sys::CUdeviceptr = 0;
        // SAFETY: the pointer is this live cuMemHostAlloc(DEVICEMAP) allocation.
        check("cuMemHostGetDevicePointer_v2", unsafe {
            sys::cuMemHostGetDevicePointer_v2(&mut d, self.ptr.as_ptr().cast(), 0)
        })?;
        Ok(DevicePtr(d))
    }
}

impl<T: DeviceRepr> Deref for PinnedBuffer<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialised (zero-filled) values, or a dangling pointer with no bytes.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: DeviceRepr> DerefMut for PinnedBuffer<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as above, and `&mut self` is exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: DeviceRepr> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        if self.allocated && self.ctx.bind_to_thread().is_ok() {
            // SAFETY: owned cuMemHostAlloc allocation. Errors are ignored. The context's work
            // is waited for first (`cuMemFreeHost` promises no synchronization).
            unsafe {
                let _ = sys::cuCtxSynchronize();
                let _ = sys::cuMemFreeHost(self.ptr.as_ptr().cast());
            }
        }
    }
}

impl<T: DeviceRepr> fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PinnedBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .field("flags", &self.flags)
            .finish()
    }
}

impl Context {
    /// Implementation of [`Context::alloc_pinned`].
    pub(crate) fn alloc_pinned_impl<T: DeviceRepr>(&self, len: usize) -> Result<PinnedBuffer<T>> {
        self.alloc_pinned_with_flags(len, PinnedFlags::default())
    }

    /// Implementation of [`Context::alloc_pinned_with_flags`].
    pub(crate) fn alloc_pinned_with_flags_impl<T: DeviceRepr>(
        &self,
        len: usize,
        flags: PinnedFlags,
    ) -> Result<PinnedBuffer<T>> {
        let bytes = byte_len::<T>("cuMemHostAlloc", len)?;
        if bytes == 0 {
            return Ok(PinnedBuffer {
                ptr: NonNull::dangling(),
                len,
                allocated: false,
                flags,
                ctx: self.clone(),
            });
        }
        self.bind_to_thread()?;
        let mut p: *mut std::ffi::c_void = std::ptr::null_mut();
        // SAFETY: out-pointer to a local.
        check("cuMemHostAlloc", unsafe {
            sys::cuMemHostAlloc(&mut p, bytes, flags.bits())
        })?;
        let Some(ptr) = NonNull::new(p.cast::<T>()) else {
            return Err(Error::invalid("cuMemHostAlloc", "the driver returned a null pointer"));
        };
        // SAFETY: fresh allocation of `bytes` bytes (page-aligned, so aligned for T).
        unsafe { std::ptr::write_bytes(p.cast::<u8>(), 0, bytes) };
        Ok(PinnedBuffer {
            ptr,
            len,
            allocated: true,
            flags,
            ctx: self.clone(),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// RegisteredHost
// ---------------------------------------------------------------------------------------------

/// Ordinary host memory page-locked in place (`cuMemHostRegister_v2`) for as long as this value
/// lives; `cuMemHostUnregister` on drop. It borrows the slice mutably, so nothing else touches it
/// meanwhile; read and write it through `Deref<Target = [T]>` / `DerefMut`.
///
/// `Send`/`Sync` when `T` is, like the `&'a mut [T]` it holds.
pub struct RegisteredHost<'a, T: DeviceRepr> {
    ptr: NonNull<T>,
    len: usize,
    registered: bool,
    ctx: Context,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: behaves as the &'a mut [T] it was made from.
unsafe impl<T: DeviceRepr + Send> Send for RegisteredHost<'_, T> {}
// SAFETY: as above.
unsafe impl<T: DeviceRepr + Sync> Sync for RegisteredHost<'_, T> {}

impl<T: DeviceRepr> RegisteredHost<'_, T> {
    /// The context it was registered in.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Size in bytes.
    pub fn num_bytes(&self) -> usize {
        self.len.saturating_mul(std::mem::size_of::<T>())
    }
}

impl<T: DeviceRepr> Deref for RegisteredHost<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: the borrowed slice, alive for 'a.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: DeviceRepr> DerefMut for RegisteredHost<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: the mutably borrowed slice; `&mut self` is exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: DeviceRepr> Drop for RegisteredHost<'_, T> {
    fn drop(&mut self) {
        if self.registered && self.ctx.bind_to_thread().is_ok() {
            // SAFETY: this range was registered by register_host. Errors are ignored. The
            // context's work is waited for first: the range becomes pageable again.
            unsafe {
                let _ = sys::cuCtxSynchronize();
                let _ = sys::cuMemHostUnregister(self.ptr.as_ptr().cast());
            }
        }
    }
}

impl<T: DeviceRepr> fmt::Debug for RegisteredHost<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegisteredHost")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

impl Context {
    /// Implementation of [`Context::register_host`].
    pub(crate) fn register_host_impl<'a, T: DeviceRepr>(&self, host: &'a mut [T]) -> Result<RegisteredHost<'a, T>> {
        let len = host.len();
        let bytes = std::mem::size_of_val(host);
        let ptr = NonNull::from(&mut *host).cast::<T>();
        let registered = bytes > 0;
        if registered {
            self.bind_to_thread()?;
            // SAFETY: `host` is a live, exclusively borrowed range of `bytes` bytes.
            check("cuMemHostRegister_v2", unsafe {
                sys::cuMemHostRegister_v2(ptr.as_ptr().cast(), bytes, 0)
            })?;
        }
        Ok(RegisteredHost {
            ptr,
            len,
            registered,
            ctx: self.clone(),
            _borrow: PhantomData,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// ManagedBuffer
// ---------------------------------------------------------------------------------------------

/// Managed (unified) memory for `len` values of `T` (`cuMemAllocManaged` with
/// `CU_MEM_ATTACH_GLOBAL`, freed with `cuMemFree_v2` on drop), zero-filled, usable by kernels
/// through its device pointer and by the host through `Deref<Target = [T]>` / `DerefMut`.
///
/// The host must not touch it while device work that writes it may be in flight: synchronize
/// first (on devices without `concurrent_managed_access`, host access while *any* kernel runs
/// faults). That is what `cuda_lint::missing_sync` checks. `Send`/`Sync` when `T` is.
pub struct ManagedBuffer<T: DeviceRepr> {
    pub(crate) ptr: sys::CUdeviceptr,
    len: usize,
    ctx: Context,
    _marker: PhantomData<T>,
}

impl<T: DeviceRepr> ManagedBuffer<T> {
    /// Number of elements (also `self.len()` through `Deref`).
    pub fn num_elems(&self) -> usize {
        self.len
    }

    /// Size in bytes.
    pub fn num_bytes(&self) -> usize {
        self.len.saturating_mul(std::mem::size_of::<T>())
    }

    /// The device address (equal to the host address under unified memory); null when empty.
    pub fn device_ptr(&self) -> DevicePtr {
        DevicePtr(self.ptr)
    }

    /// The context it was allocated in.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    fn host_ptr(&self) -> *mut T {
        if self.ptr == 0 {
            NonNull::<T>::dangling().as_ptr()
        } else {
            self.ptr as usize as *mut T
        }
    }
}

impl<T: DeviceRepr> Deref for ManagedBuffer<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: managed memory is host-addressable at its device address; `len` zero-filled
        // values (or none). Concurrent device writes are the caller's contract (see type docs).
        unsafe { std::slice::from_raw_parts(self.host_ptr(), self.len) }
    }
}

impl<T: DeviceRepr> DerefMut for ManagedBuffer<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as above; `&mut self` is exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.host_ptr(), self.len) }
    }
}

impl<T: DeviceRepr> Drop for ManagedBuffer<T> {
    fn drop(&mut self) {
        if self.ptr != 0 && self.ctx.bind_to_thread().is_ok() {
            // SAFETY: owned allocation. Errors are ignored. The context's work is waited for
            // first (`cuMemFree` promises no synchronization).
            unsafe {
                let _ = sys::cuCtxSynchronize();
                let _ = sys::cuMemFree_v2(self.ptr);
            }
        }
    }
}

impl<T: DeviceRepr> fmt::Debug for ManagedBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ManagedBuffer")
            .field("ptr", &DevicePtr(self.ptr))
            .field("len", &self.len)
            .finish()
    }
}

// SAFETY: the pointer and size describe the allocation this buffer owns.
unsafe impl<T: DeviceRepr> DeviceMemory for ManagedBuffer<T> {
    fn device_ptr(&self) -> DevicePtr {
        DevicePtr(self.ptr)
    }
    fn num_bytes(&self) -> usize {
        ManagedBuffer::num_bytes(self)
    }
}

impl Context {
    /// Implementation of [`Context::alloc_managed`].
    pub(crate) fn alloc_managed_impl<T: DeviceRepr>(&self, len: usize) -> Result<ManagedBuffer<T>> {
        let bytes = byte_len::<T>("cuMemAllocManaged", len)?;
        let mut ptr: sys::CUdeviceptr = 0;
        if bytes > 0 {
            self.bind_to_thread()?;
            // SAFETY: out-pointer to a local.
            check("cuMemAllocManaged", unsafe {
                sys::cuMemAllocManaged(&mut ptr, bytes, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32)
            })?;
        }
        let buf = ManagedBuffer {
            ptr,
            len,
            ctx: self.clone(),
            _marker: PhantomData,
        };
        if bytes > 0 {
            zero_fill_sync(self, ptr, bytes)?;
        }
        Ok(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_flag_bits() {
        assert_eq!(PinnedFlags::default().bits(), 0);
        let p = PinnedFlags {
            portable: true,
            ..Default::default()
        };
        assert_eq!(p.bits(), 1);
        let m = PinnedFlags {
            device_mapped: true,
            ..Default::default()
        };
        assert_eq!(m.bits(), 2);
        let w = PinnedFlags {
            write_combined: true,
            ..Default::default()
        };
        assert_eq!(w.bits(), 4);
        let all = PinnedFlags {
            portable: true,
            device_mapped: true,
            write_combined: true,
        };
        assert_eq!(all.bits(), 7);
        for b in 0..8 {
            assert_eq!(PinnedFlags::from_bits(b).unwrap().bits(), b);
        }
        assert_eq!(PinnedFlags::from_bits(8), None);
    }

    #[test]
    fn byte_len_overflow_is_invalid_argument() {
        assert_eq!(byte_len::<u32>("cuMemAlloc_v2", 4).unwrap(), 16);
        assert_eq!(byte_len::<u32>("cuMemAlloc_v2", 0).unwrap(), 0);
        let e = byte_len::<u64>("cuMemAlloc_v2", usize::MAX).unwrap_err();
        assert!(matches!(
            e,
            Error::InvalidArgument {
                call: "cuMemAlloc_v2",
                ..
            }
        ));
        assert_eq!(byte_len::<[u8; 0]>("x", usize::MAX).unwrap(), 0);
    }

    #[test]
    fn device_ptr_arithmetic() {
        let p = DevicePtr::from_raw(0x1000);
        assert_eq!(p.offset_bytes(0x10).as_raw(), 0x1010);
        assert!(DevicePtr::null().is_null());
        assert_eq!(DevicePtr::from_raw(u64::MAX).offset_bytes(1), DevicePtr::null());
        assert_eq!(format!("{p:?}"), "DevicePtr(0x1000)");
        assert_eq!(std::mem::size_of::<DevicePtr>(), 8);
    }

    fn assert_send_sync<T: Send + Sync>() {}
    fn assert_repr<T: DeviceRepr>() {}

    #[test]
    fn auto_traits_and_repr() {
        assert_send_sync::<DeviceBuffer<f32>>();
        assert_send_sync::<PinnedBuffer<u8>>();
        assert_send_sync::<RegisteredHost<'static, u64>>();
        assert_send_sync::<ManagedBuffer<i32>>();
        assert_repr::<[[f32; 4]; 2]>();
        assert_repr::<DevicePtr>();
    }
}
