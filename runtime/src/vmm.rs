//! Virtual memory management: physical allocations (`cuMemCreate`), reserved address ranges
//! (`cuMemAddressReserve`) and mappings of the one into the other (`cuMemMap`,
//! `cuMemSetAccess`).
//!
//! Several mappings of one [`PhysicalAllocation`] are aliases: the same bytes at different
//! addresses. A kernel that writes through one alias and reads through another needs
//! `fence.proxy.alias` between the two (`cuda_lint::unfenced_vmm_alias`); separate launches on
//! one stream are ordered.
//!
//! Release follows CUDA's documented order, guaranteed by ownership: a [`Mapping`] owns its
//! [`VirtualRange`] and a share of its physical allocation, and dropping it does `cuMemUnmap`,
//! then gives up its share (`cuMemRelease` when it was the last owner), then
//! `cuMemAddressFree`.

use std::ffi::{c_int, c_void};
use std::fmt;
use std::sync::Arc;

use cudarc::driver::sys;

use crate::context::Context;
use crate::driver::check;
use crate::error::{Error, Result};
use crate::kernel::KernelArg;
use crate::memory::{DeviceMemory, DevicePtr};

/// Access a device has to a mapping (`cuMemSetAccess`'s `CUmemAccess_flags`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccessFlags {
    /// `CU_MEM_ACCESS_FLAGS_PROT_NONE`: no access.
    None,
    /// `CU_MEM_ACCESS_FLAGS_PROT_READ`: read-only.
    Read,
    /// `CU_MEM_ACCESS_FLAGS_PROT_READWRITE`: read and write (what [`VirtualRange::map`] sets).
    ReadWrite,
}

impl AccessFlags {
    /// The driver's value.
    pub fn to_raw(self) -> sys::CUmemAccess_flags {
        match self {
            AccessFlags::None => sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_NONE,
            AccessFlags::Read => sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READ,
            AccessFlags::ReadWrite => sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        }
    }
}

fn device_location(ctx: &Context) -> sys::CUmemLocation {
    sys::CUmemLocation {
        type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
        id: ctx.device().as_raw() as c_int,
    }
}

/// `CU_MEM_ALLOCATION_TYPE_PINNED` device memory on this context's device, no export handle.
fn pinned_device_prop(ctx: &Context) -> sys::CUmemAllocationProp {
    sys::CUmemAllocationProp {
        type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
        location: device_location(ctx),
        win32HandleMetaData: std::ptr::null_mut(),
        allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 {
            compressionType: 0,
            gpuDirectRDMACapable: 0,
            usage: 0,
            reserved: [0; 4],
        },
    }
}

fn access_desc(ctx: &Context, flags: AccessFlags) -> sys::CUmemAccessDesc {
    sys::CUmemAccessDesc {
        location: device_location(ctx),
        flags: flags.to_raw(),
    }
}

/// `Ok` when `size` is a positive multiple of `granularity`, else [`Error::InvalidArgument`].
pub(crate) fn check_granular(call: &'static str, what: &str, size: usize, granularity: usize) -> Result<()> {
    if granularity == 0 {
        return Err(Error::invalid(call, "the driver reported a granularity of 0"));
    }
    if size == 0 {
        return Err(Error::invalid(call, format!("{what} must not be 0")));
    }
    if !size.is_multiple_of(granularity) {
        return Err(Error::invalid(
            call,
            format!(
                "{what} {size} is not a multiple of the allocation granularity {granularity} \
                 (Context::vmm_granularity)"
            ),
        ));
    }
    Ok(())
}

impl Context {
    /// Implementation of [`Context::vmm_supported`].
    pub(crate) fn vmm_supported_impl(&self) -> Result<bool> {
        self.device().supports_vmm()
    }

    /// Implementation of [`Context::vmm_granularity`].
    pub(crate) fn vmm_granularity_impl(&self) -> Result<usize> {
        require_vmm(self)?;
        self.bind_to_thread()?;
        let prop = pinned_device_prop(self);
        let mut gran = 0usize;
        // SAFETY: out-pointer to a local; `prop` is a valid description.
        check("cuMemGetAllocationGranularity", unsafe {
            sys::cuMemGetAllocationGranularity(
                &mut gran,
                &prop,
                sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM,
            )
        })?;
        Ok(gran)
    }
}

fn require_vmm(ctx: &Context) -> Result<()> {
    if ctx.vmm_supported()? {
        Ok(())
    } else {
        Err(Error::Unsupported {
            what: format!(
                "virtual memory management (cuMemCreate/cuMemMap) on device {}",
                ctx.ordinal()
            ),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// PhysicalAllocation
// ---------------------------------------------------------------------------------------------

/// The generic allocation handle, shared by the [`PhysicalAllocation`] and every [`Mapping`] of
/// it; `cuMemRelease` when the last share drops.
struct PhysicalHandle {
    raw: sys::CUmemGenericAllocationHandle,
    size: usize,
    ctx: Context,
}

impl Drop for PhysicalHandle {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: owned handle, released once. Errors are ignored.
            unsafe {
                let _ = sys::cuMemRelease(self.raw);
            }
        }
    }
}

/// Physical device memory with no address (`cuMemCreate`, `CU_MEM_ALLOCATION_TYPE_PINNED` on
/// this context's device). Map it with [`VirtualRange::map`], as many times as wanted.
///
/// Dropping it while mappings exist is fine: each [`Mapping`] keeps the handle alive, and the
/// memory is released (`cuMemRelease`) with the last of them.
pub struct PhysicalAllocation {
    handle: Arc<PhysicalHandle>,
}

impl PhysicalAllocation {
    /// Creates `size` bytes of physical memory (`cuMemCreate`). `size` must be a positive
    /// multiple of [`Context::vmm_granularity`] ([`Error::InvalidArgument`] otherwise; it is not
    /// rounded). [`Error::Unsupported`] without VMM.
    pub fn new(ctx: &Context, size: usize) -> Result<PhysicalAllocation> {
        let gran = ctx.vmm_granularity()?;
        check_granular("cuMemCreate", "size", size, gran)?;
        ctx.bind_to_thread()?;
        let prop = pinned_device_prop(ctx);
        let mut raw: sys::CUmemGenericAllocationHandle = 0;
        // SAFETY: out-pointer to a local; valid description; flags must be 0.
        check("cuMemCreate", unsafe { sys::cuMemCreate(&mut raw, size, &prop, 0) })?;
        Ok(PhysicalAllocation {
            handle: Arc::new(PhysicalHandle {
                raw,
                size,
                ctx: ctx.clone(),
            }),
        })
    }

    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.handle.size
    }

    /// Identifies this physical allocation; every [`Mapping`] of it reports the same
    /// [`Mapping::physical_id`]. (It is the raw handle value.)
    pub fn id(&self) -> u64 {
        self.handle.raw
    }

    /// The raw `CUmemGenericAllocationHandle`; valid while `self` or a mapping of it lives.
    pub fn as_raw(&self) -> sys::CUmemGenericAllocationHandle {
        self.handle.raw
    }

    /// The context it was created in.
    pub fn context(&self) -> &Context {
        &self.handle.ctx
    }
}

impl fmt::Debug for PhysicalAllocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PhysicalAllocation")
            .field("id", &self.handle.raw)
            .field("size", &self.handle.size)
            .finish()
    }
}

// ---------------------------------------------------------------------------------------------
// VirtualRange
// ---------------------------------------------------------------------------------------------

/// A reserved range of device virtual addresses with nothing behind it
/// (`cuMemAddressReserve`; `cuMemAddressFree` on drop).
pub struct VirtualRange {
    ptr: sys::CUdeviceptr,
    size: usize,
    ctx: Context,
}

impl VirtualRange {
    /// Reserves `size` bytes of address space (`cuMemAddressReserve`, default alignment, no
    /// fixed address). `size` must be a positive multiple of [`Context::vmm_granularity`].
    pub fn reserve(ctx: &Context, size: usize) -> Result<VirtualRange> {
        let gran = ctx.vmm_granularity()?;
        check_granular("cuMemAddressReserve", "size", size, gran)?;
        ctx.bind_to_thread()?;
        let mut ptr: sys::CUdeviceptr = 0;
        // SAFETY: out-pointer to a local.
        check("cuMemAddressReserve", unsafe {
            sys::cuMemAddressReserve(&mut ptr, size, 0, 0, 0)
        })?;
        Ok(VirtualRange {
            ptr,
            size,
            ctx: ctx.clone(),
        })
    }

    /// The first address of the range.
    pub fn device_ptr(&self) -> DevicePtr {
        DevicePtr::from_raw(self.ptr)
    }

    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The context it was reserved in.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Maps `self.size()` bytes of `physical`, starting `offset` bytes into it, at this range
    /// (`cuMemMap`), and gives this device read-write access (`cuMemSetAccess`).
    ///
    /// `offset` must be a multiple of the granularity and `offset + self.size()` must not exceed
    /// `physical.size()` ([`Error::InvalidArgument`]); and, as `cuMemMap` documents ("currently
    /// must be zero"), CUDA maps from offset 0 only: any other offset is
    /// [`Error::Unsupported`] (the driver answers `CUDA_ERROR_NOT_SUPPORTED`, checked on an
    /// H200 with driver 580). Mapping one physical allocation into several ranges makes
    /// aliases. On error the range is freed.
    pub fn map(self, physical: &PhysicalAllocation, offset: usize) -> Result<Mapping> {
        if !physical.context().same_context(&self.ctx) {
            return Err(Error::invalid(
                "cuMemMap",
                "the physical allocation and the range belong to different contexts",
            ));
        }
        let gran = self.ctx.vmm_granularity()?;
        if !offset.is_multiple_of(gran) {
            return Err(Error::invalid(
                "cuMemMap",
                format!("offset {offset} is not a multiple of the granularity {gran}"),
            ));
        }
        match offset.checked_add(self.size) {
            Some(end) if end <= physical.size() => {}
            _ => {
                return Err(Error::invalid(
                    "cuMemMap",
                    format!(
                        "offset {offset} + size {} exceeds the physical allocation's {} bytes",
                        self.size,
                        physical.size()
                    ),
                ));
            }
        }
        if offset != 0 {
            return Err(Error::Unsupported {
                what: format!("cuMemMap at offset {offset}: CUDA maps a physical allocation from offset 0 only"),
            });
        }
        self.ctx.bind_to_thread()?;
        // SAFETY: reserved range and live handle, sizes checked above.
        check("cuMemMap", unsafe {
            sys::cuMemMap(self.ptr, self.size, offset, physical.handle.raw, 0)
        })?;
        let mapping = Mapping {
            ptr: self.ptr,
            size: self.size,
            offset,
            mapped: true,
            phys: Some(Arc::clone(&physical.handle)),
            ctx: self.ctx.clone(),
            range: Some(self),
        };
        // On error `mapping` drops: unmap, release share, free the range.
        mapping.set_access(AccessFlags::ReadWrite)?;
        Ok(mapping)
    }
}

impl Drop for VirtualRange {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: owned reservation, nothing mapped in it any more (Mapping unmaps before
            // dropping its range). Errors are ignored.
            unsafe {
                let _ = sys::cuMemAddressFree(self.ptr, self.size);
            }
        }
    }
}

impl fmt::Debug for VirtualRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VirtualRange")
            .field("ptr", &DevicePtr::from_raw(self.ptr))
            .field("size", &self.size)
            .finish()
    }
}

// ---------------------------------------------------------------------------------------------
// Mapping
// ---------------------------------------------------------------------------------------------

/// A [`VirtualRange`] with (part of) a [`PhysicalAllocation`] mapped at it (`cuMemMap`):
/// device memory usable by kernels, memsets ([`DeviceMemory`]) and as a kernel argument.
///
/// Drop does `cuMemUnmap`, then releases its share of the physical allocation (`cuMemRelease`
/// when last), then `cuMemAddressFree`; errors are ignored.
pub struct Mapping {
    ptr: sys::CUdeviceptr,
    size: usize,
    offset: usize,
    mapped: bool,
    phys: Option<Arc<PhysicalHandle>>,
    range: Option<VirtualRange>,
    ctx: Context,
}

impl Mapping {
    /// The device address of the mapping (the range's first address).
    pub fn device_ptr(&self) -> DevicePtr {
        DevicePtr::from_raw(self.ptr)
    }

    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Offset into the physical allocation where the mapping starts.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Identifies the physical allocation behind the mapping: equal for aliases, equal to
    /// [`PhysicalAllocation::id`].
    pub fn physical_id(&self) -> u64 {
        self.phys.as_ref().map_or(0, |p| p.raw)
    }

    /// Whether `self` and `other` map the same physical allocation (are aliases).
    pub fn aliases(&self, other: &Mapping) -> bool {
        self.physical_id() == other.physical_id()
    }

    /// The context it belongs to.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Sets this device's access to the mapping (`cuMemSetAccess`).
    pub fn set_access(&self, flags: AccessFlags) -> Result<()> {
        let ctx = self.context();
        ctx.bind_to_thread()?;
        let desc = access_desc(ctx, flags);
        // SAFETY: mapped range of `size` bytes; one descriptor.
        check("cuMemSetAccess", unsafe {
            sys::cuMemSetAccess(self.ptr, self.size, &desc, 1)
        })
    }

    /// Waits for the context's work (`cuMemUnmap` does not: work still using the mapping
    /// would fault), unmaps (`cuMemUnmap`) and gives the reserved range back for reuse; this
    /// mapping's share of the physical allocation is released (`cuMemRelease` if it was the
    /// last).
    pub fn unmap(mut self) -> Result<VirtualRange> {
        self.context().synchronize()?;
        // SAFETY: mapped range of `size` bytes. On error `self` drops normally.
        check("cuMemUnmap", unsafe { sys::cuMemUnmap(self.ptr, self.size) })?;
        self.mapped = false;
        drop(self.phys.take());
        self.range
            .take()
            .ok_or_else(|| Error::invalid("cuMemUnmap", "mapping without a range (internal error)"))
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        if self.mapped {
            // `cuMemUnmap` does not wait for the device: wait for the work that may still use
            // the mapping first (vLLM #43020). Errors are ignored.
            if self.ctx.synchronize().is_ok() || self.ctx.bind_to_thread().is_ok() {
                // SAFETY: mapped range, no work left using it.
                unsafe {
                    let _ = sys::cuMemUnmap(self.ptr, self.size);
                }
            }
            self.mapped = false;
        }
        // Documented order: unmap (above), release (last share of the handle), address free.
        drop(self.phys.take());
        drop(self.range.take());
    }
}

impl fmt::Debug for Mapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mapping")
            .field("ptr", &DevicePtr::from_raw(self.ptr))
            .field("size", &self.size)
            .field("offset", &self.offset)
            .field("physical_id", &self.physical_id())
            .finish()
    }
}

// SAFETY: the mapping owns `size` bytes of mapped, read-write address space at `ptr`.
unsafe impl DeviceMemory for Mapping {
    fn device_ptr(&self) -> DevicePtr {
        DevicePtr::from_raw(self.ptr)
    }
    fn num_bytes(&self) -> usize {
        self.size
    }
}

// SAFETY: points at the stored CUdeviceptr field, alive as long as the borrow.
unsafe impl KernelArg for Mapping {
    #[inline]
    fn param_ptr(&self) -> *mut c_void {
        (&self.ptr as *const sys::CUdeviceptr).cast_mut().cast()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn granularity_checks() {
        let g = 2 << 20;
        assert!(check_granular("cuMemCreate", "size", g, g).is_ok());
        assert!(check_granular("cuMemCreate", "size", 3 * g, g).is_ok());
        assert!(matches!(
            check_granular("cuMemCreate", "size", g + 1, g),
            Err(Error::InvalidArgument {
                call: "cuMemCreate",
                ..
            })
        ));
        assert!(check_granular("cuMemCreate", "size", 0, g).is_err());
        assert!(check_granular("cuMemCreate", "size", g, 0).is_err());
    }

    #[test]
    fn access_flag_values() {
        assert_eq!(AccessFlags::None.to_raw() as u32, 0);
        assert_eq!(AccessFlags::Read.to_raw() as u32, 1);
        assert_eq!(AccessFlags::ReadWrite.to_raw() as u32, 3);
    }

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn vmm_types_are_send_sync() {
        assert_send_sync::<PhysicalAllocation>();
        assert_send_sync::<VirtualRange>();
        assert_send_sync::<Mapping>();
    }
}
