//! case: near-miss. Activation-memory region for a training job (driver VMM via cudarc's sys layer) is resized by synchronizing, unmapping, releasing, then creating and mapping a new handle at the same reserved address and granting access again before clearing it; teardown unmaps and releases before freeing the reservation
//! expect: none

use cudarc::driver::sys;

#[derive(Debug)]
pub enum RegionError {
    TooLarge { requested: usize, reserved: usize },
    Cuda(&'static str, sys::CUresult),
}

fn ck(what: &'static str, r: sys::CUresult) -> Result<(), RegionError> {
    if r == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(RegionError::Cuda(what, r)) }
}

pub struct ActivationRegion {
    ordinal: i32,
    stream: sys::CUstream,
    va: sys::CUdeviceptr,
    reserved: usize,
    gran: usize,
    mapped: Option<(sys::CUmemGenericAllocationHandle, usize)>,
}

impl ActivationRegion {
    fn prop(&self) -> sys::CUmemAllocationProp {
        sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: self.ordinal },
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        }
    }

    pub fn reserve(ordinal: i32, reserved: usize, gran: usize, stream: sys::CUstream) -> Result<Self, RegionError> {
        let reserved = reserved.div_ceil(gran) * gran;
        let mut va = 0;
        ck("cuMemAddressReserve", unsafe { sys::cuMemAddressReserve(&mut va, reserved, gran, 0, 0) })?;
        Ok(Self { ordinal, stream, va, reserved, gran, mapped: None })
    }

    fn unmap_current(&mut self) -> Result<(), RegionError> {
        if let Some((handle, bytes)) = self.mapped.take() {
            // cuMemUnmap does not wait for the device
            ck("cuStreamSynchronize", unsafe { sys::cuStreamSynchronize(self.stream) })?;
            ck("cuMemUnmap", unsafe { sys::cuMemUnmap(self.va, bytes) })?;
            ck("cuMemRelease", unsafe { sys::cuMemRelease(handle) })?;
        }
        Ok(())
    }

    /// Makes the region `bytes` long (rounded to the granularity), zero-filled.
    pub fn resize(&mut self, bytes: usize) -> Result<sys::CUdeviceptr, RegionError> {
        let bytes = bytes.div_ceil(self.gran) * self.gran;
        if bytes > self.reserved {
            return Err(RegionError::TooLarge { requested: bytes, reserved: self.reserved });
        }
        self.unmap_current()?;
        let prop = self.prop();
        let mut handle = 0;
        ck("cuMemCreate", unsafe { sys::cuMemCreate(&mut handle, bytes, &prop, 0) })?;
        ck("cuMemMap", unsafe { sys::cuMemMap(self.va, bytes, 0, handle, 0) })?;
        let access = sys::CUmemAccessDesc { location: prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        ck("cuMemSetAccess", unsafe { sys::cuMemSetAccess(self.va, bytes, &access, 1) })?;
        self.mapped = Some((handle, bytes));
        ck("cuMemsetD32Async", unsafe { sys::cuMemsetD32Async(self.va, 0, bytes / 4, self.stream) })?;
        Ok(self.va)
    }
}

impl Drop for ActivationRegion {
    fn drop(&mut self) {
        let _ = self.unmap_current();
        unsafe {
            let _ = sys::cuMemAddressFree(self.va, self.reserved);
        }
    }
}
