//! Driver initialisation and devices: `cuInit`, `cuDriverGetVersion`, `cuDeviceGetCount`,
//! `cuDeviceGet`, `cuDeviceGetAttribute`.

use std::ffi::{CStr, c_char, c_int};

use cudarc::driver::sys;
use cudarc::driver::sys::CUdevice_attribute as Attr;

use crate::driver::{check, ensure_driver};
use crate::error::{Error, Result};

/// Loads the CUDA driver library and calls `cuInit(0)`, once per process.
///
/// Returns [`Error::NoDriver`] when `libcuda` cannot be loaded and [`Error::NoDevice`] when
/// `cuInit` reports `CUDA_ERROR_NO_DEVICE`; the first outcome is cached and returned again by
/// every later call. Every other function of this crate calls it first, so calling it is
/// optional.
pub fn init() -> Result<()> {
    ensure_driver()
}

/// The CUDA version the installed driver supports, as `cuDriverGetVersion` reports it:
/// `1000 * major + 10 * minor` (e.g. `13000` for CUDA 13.0).
pub fn driver_version() -> Result<i32> {
    ensure_driver()?;
    let mut v: c_int = 0;
    // SAFETY: out-pointer to a local.
    check("cuDriverGetVersion", unsafe { sys::cuDriverGetVersion(&mut v) })?;
    Ok(v)
}

/// The number of CUDA devices (`cuDeviceGetCount`). `Ok(0)` is possible; [`Device::get`] and
/// [`crate::Context::new`] turn it into [`Error::NoDevice`].
pub fn device_count() -> Result<usize> {
    ensure_driver()?;
    let mut n: c_int = 0;
    // SAFETY: out-pointer to a local.
    check("cuDeviceGetCount", unsafe { sys::cuDeviceGetCount(&mut n) })?;
    Ok(usize::try_from(n).unwrap_or(0))
}

/// A CUDA device (`CUdevice`), by ordinal. Cheap to copy; owns nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Device {
    ordinal: usize,
    raw: sys::CUdevice,
}

impl Device {
    /// The device with this ordinal (`cuDeviceGet`).
    ///
    /// [`Error::NoDevice`] when the driver reports no device at all;
    /// [`Error::InvalidArgument`] when `ordinal` is not below [`device_count`].
    pub fn get(ordinal: usize) -> Result<Device> {
        let count = device_count()?;
        if count == 0 {
            return Err(Error::NoDevice);
        }
        if ordinal >= count {
            return Err(Error::invalid(
                "cuDeviceGet",
                format!("device ordinal {ordinal}, but the driver reports {count} device(s)"),
            ));
        }
        let mut raw: sys::CUdevice = 0;
        // SAFETY: out-pointer to a local; ordinal < count fits in c_int.
        check("cuDeviceGet", unsafe { sys::cuDeviceGet(&mut raw, ordinal as c_int) })?;
        Ok(Device { ordinal, raw })
    }

    /// The ordinal this device was opened with.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The raw `CUdevice` handle, for calls into `cudarc::driver::sys`.
    pub fn as_raw(&self) -> sys::CUdevice {
        self.raw
    }

    /// The device's name (`cuDeviceGetName`), e.g. `"NVIDIA H200"`.
    pub fn name(&self) -> Result<String> {
        let mut buf = [0 as c_char; 256];
        // SAFETY: the driver writes at most `len` bytes, NUL-terminated.
        check("cuDeviceGetName", unsafe {
            sys::cuDeviceGetName(buf.as_mut_ptr(), buf.len() as c_int, self.raw)
        })?;
        buf[buf.len() - 1] = 0;
        // SAFETY: NUL-terminated (forced above).
        Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned())
    }

    /// Total device memory in bytes (`cuDeviceTotalMem_v2`).
    pub fn total_memory(&self) -> Result<usize> {
        let mut bytes = 0usize;
        // SAFETY: out-pointer to a local.
        check("cuDeviceTotalMem_v2", unsafe {
            sys::cuDeviceTotalMem_v2(&mut bytes, self.raw)
        })?;
        Ok(bytes)
    }

    /// One device attribute (`cuDeviceGetAttribute`).
    pub fn attribute(&self, attr: sys::CUdevice_attribute) -> Result<i32> {
        let mut v: c_int = 0;
        // SAFETY: out-pointer to a local.
        check("cuDeviceGetAttribute", unsafe {
            sys::cuDeviceGetAttribute(&mut v, attr, self.raw)
        })?;
        Ok(v)
    }

    fn attr_u32(&self, attr: sys::CUdevice_attribute) -> Result<u32> {
        Ok(u32::try_from(self.attribute(attr)?).unwrap_or(0))
    }

    fn attr_bool(&self, attr: sys::CUdevice_attribute) -> Result<bool> {
        Ok(self.attribute(attr)? != 0)
    }

    /// `(major, minor)` compute capability
    /// (`CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR`/`_MINOR`), e.g. `(9, 0)` for Hopper.
    pub fn compute_capability(&self) -> Result<(u32, u32)> {
        Ok((
            self.attr_u32(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            self.attr_u32(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        ))
    }

    /// Whether the device supports the virtual memory management API (`cuMemCreate`, `cuMemMap`):
    /// `CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED`.
    pub fn supports_vmm(&self) -> Result<bool> {
        self.attr_bool(Attr::CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED)
    }

    /// The properties that matter for memory, in one query
    /// (`cuDeviceGetName`, `cuDeviceTotalMem_v2`, `cuDeviceGetAttribute`).
    pub fn properties(&self) -> Result<DeviceProperties> {
        Ok(DeviceProperties {
            ordinal: self.ordinal,
            name: self.name()?,
            compute_capability: self.compute_capability()?,
            total_memory_bytes: self.total_memory()?,
            multiprocessor_count: self.attr_u32(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            clock_rate_khz: self.attr_u32(Attr::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?,
            memory_clock_rate_khz: self.attr_u32(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)?,
            memory_bus_width_bits: self.attr_u32(Attr::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)?,
            l2_cache_bytes: self.attr_u32(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
            warp_size: self.attr_u32(Attr::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            max_threads_per_block: self.attr_u32(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_shared_memory_per_block: self.attr_u32(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            max_shared_memory_per_block_optin: self
                .attr_u32(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
            async_engine_count: self.attr_u32(Attr::CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT)?,
            integrated: self.attr_bool(Attr::CU_DEVICE_ATTRIBUTE_INTEGRATED)?,
            supports_vmm: self.supports_vmm()?,
            supports_managed_memory: self.attr_bool(Attr::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY)?,
            concurrent_managed_access: self.attr_bool(Attr::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS)?,
            pageable_memory_access: self.attr_bool(Attr::CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS)?,
            unified_addressing: self.attr_bool(Attr::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING)?,
            can_map_host_memory: self.attr_bool(Attr::CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY)?,
            host_register_supported: self.attr_bool(Attr::CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED)?,
            pci_bus_id: self.attr_u32(Attr::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)?,
            pci_device_id: self.attr_u32(Attr::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)?,
        })
    }
}

/// What [`Device::properties`] reports. Fields are named after the `CU_DEVICE_ATTRIBUTE_*` they
/// come from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceProperties {
    /// Device ordinal.
    pub ordinal: usize,
    /// `cuDeviceGetName`.
    pub name: String,
    /// `(major, minor)`: `COMPUTE_CAPABILITY_MAJOR`, `COMPUTE_CAPABILITY_MINOR`.
    pub compute_capability: (u32, u32),
    /// `cuDeviceTotalMem_v2`.
    pub total_memory_bytes: usize,
    /// `MULTIPROCESSOR_COUNT`.
    pub multiprocessor_count: u32,
    /// `CLOCK_RATE` (kHz): what `clock64()` counts, used to size spin kernels.
    pub clock_rate_khz: u32,
    /// `MEMORY_CLOCK_RATE` (kHz).
    pub memory_clock_rate_khz: u32,
    /// `GLOBAL_MEMORY_BUS_WIDTH` (bits).
    pub memory_bus_width_bits: u32,
    /// `L2_CACHE_SIZE` (bytes).
    pub l2_cache_bytes: u32,
    /// `WARP_SIZE`.
    pub warp_size: u32,
    /// `MAX_THREADS_PER_BLOCK`.
    pub max_threads_per_block: u32,
    /// `MAX_SHARED_MEMORY_PER_BLOCK` (bytes, without opt-in).
    pub max_shared_memory_per_block: u32,
    /// `MAX_SHARED_MEMORY_PER_BLOCK_OPTIN` (bytes, with `cuFuncSetAttribute` opt-in).
    pub max_shared_memory_per_block_optin: u32,
    /// `ASYNC_ENGINE_COUNT`: copy engines, i.e. how many copies can overlap kernels.
    pub async_engine_count: u32,
    /// `INTEGRATED`: shares physical memory with the host.
    pub integrated: bool,
    /// `VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED`: `cuMemCreate`/`cuMemMap` work.
    pub supports_vmm: bool,
    /// `MANAGED_MEMORY`: `cuMemAllocManaged` works.
    pub supports_managed_memory: bool,
    /// `CONCURRENT_MANAGED_ACCESS`: host and device may touch managed memory at the same time
    /// (otherwise any host access while a kernel runs faults).
    pub concurrent_managed_access: bool,
    /// `PAGEABLE_MEMORY_ACCESS`: kernels may dereference pageable host memory (HMM/ATS).
    pub pageable_memory_access: bool,
    /// `UNIFIED_ADDRESSING`: one virtual address space for host and devices (UVA).
    pub unified_addressing: bool,
    /// `CAN_MAP_HOST_MEMORY`: `CU_MEMHOSTALLOC_DEVICEMAP` works.
    pub can_map_host_memory: bool,
    /// `HOST_REGISTER_SUPPORTED`: `cuMemHostRegister` works.
    pub host_register_supported: bool,
    /// `PCI_BUS_ID`.
    pub pci_bus_id: u32,
    /// `PCI_DEVICE_ID`.
    pub pci_device_id: u32,
}
