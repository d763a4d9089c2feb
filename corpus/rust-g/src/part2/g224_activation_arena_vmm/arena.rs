//! A bump allocator over one VMM reservation backed by one physical allocation.

use std::ptr::null_mut;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle, CUstream};

pub(super) fn prop(device: i32) -> sys::CUmemAllocationProp {
    sys::CUmemAllocationProp {
        type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
        location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device },
        win32HandleMetaData: null_mut(),
        allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
    }
}

pub(super) fn access(device: i32) -> sys::CUmemAccessDesc {
    sys::CUmemAccessDesc {
        location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device },
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    }
}

pub struct ActivationArena {
    pub(super) device: i32,
    pub(super) stream: CUstream,
    pub(super) base: CUdeviceptr,
    pub(super) capacity: usize,
    pub(super) handle: CUmemGenericAllocationHandle,
    pub(super) top: usize,
}

impl ActivationArena {
    pub fn new(device: i32, stream: CUstream, bytes: usize) -> Result<Self, DriverError> {
        let p = prop(device);
        let mut gran = 0usize;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &p, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
                .result()?;
        }
        let capacity = bytes.div_ceil(gran) * gran;
        let (mut base, mut handle) = (0, 0);
        let desc = access(device);
        unsafe {
            sys::cuMemAddressReserve(&mut base, capacity, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, capacity, &p, 0).result()?;
            sys::cuMemMap(base, capacity, 0, handle, 0).result()?;
            sys::cuMemSetAccess(base, capacity, &desc, 1).result()?;
        }
        Ok(Self { device, stream, base, capacity, handle, top: 0 })
    }

    /// 256-byte aligned bump allocation; `None` when the arena is full.
    pub fn alloc(&mut self, bytes: usize) -> Option<CUdeviceptr> {
        let start = self.top.next_multiple_of(256);
        if start + bytes > self.capacity {
            return None;
        }
        self.top = start + bytes;
        Some(self.base + start as u64)
    }
}
