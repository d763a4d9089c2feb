//! case: a particle buffer on the VMM driver API grows by reserving a larger range and mapping the existing physical allocation plus a new one into it (no copy needed); it then frees the old reservation with cuMemAddressFree without unmapping the old mapping first
//! expect: vmm_lifecycle=1

use std::mem::zeroed;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUdeviceptr, CUmemAccessDesc, CUmemAllocationProp, CUmemGenericAllocationHandle, CUstream};

pub struct ParticleBuffer {
    device: i32,
    stream: CUstream,
    va: CUdeviceptr,
    va_size: usize,
    handles: Vec<(CUmemGenericAllocationHandle, usize)>,
}

fn alloc_prop(device: i32) -> CUmemAllocationProp {
    let mut p: CUmemAllocationProp = unsafe { zeroed() };
    p.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = device;
    p
}

fn rw_access(device: i32) -> CUmemAccessDesc {
    let mut a: CUmemAccessDesc = unsafe { zeroed() };
    a.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    a.location.id = device;
    a.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    a
}

impl ParticleBuffer {
    pub fn new(device: i32, stream: CUstream, bytes: usize) -> Result<Self, DriverError> {
        let mut handle = 0;
        let mut va = 0;
        unsafe {
            sys::cuMemCreate(&mut handle, bytes, &alloc_prop(device), 0).result()?;
            sys::cuMemAddressReserve(&mut va, bytes, 0, 0, 0).result()?;
            sys::cuMemMap(va, bytes, 0, handle, 0).result()?;
            sys::cuMemSetAccess(va, bytes, &rw_access(device), 1).result()?;
        }
        Ok(Self { device, stream, va, va_size: bytes, handles: vec![(handle, bytes)] })
    }

    pub fn device_ptr(&self) -> CUdeviceptr {
        self.va
    }

    /// Doubles the capacity. The old physical memory is mapped at the start of the new range,
    /// so the particles already there keep their contents and only the address changes.
    pub fn grow(&mut self) -> Result<CUdeviceptr, DriverError> {
        let old_va = self.va;
        let old_size = self.va_size;
        let new_size = old_size * 2;
        let mut new_va = 0;
        let mut extra = 0;
        let access = rw_access(self.device);
        unsafe {
            // Kernels still reading the old addresses must be done before we move.
            sys::cuStreamSynchronize(self.stream).result()?;
            sys::cuMemAddressReserve(&mut new_va, new_size, 0, 0, 0).result()?;
            let mut offset = 0usize;
            for &(h, size) in &self.handles {
                sys::cuMemMap(new_va + offset as u64, size, 0, h, 0).result()?;
                offset += size;
            }
            sys::cuMemCreate(&mut extra, new_size - old_size, &alloc_prop(self.device), 0).result()?;
            sys::cuMemMap(new_va + old_size as u64, new_size - old_size, 0, extra, 0).result()?;
            sys::cuMemSetAccess(new_va, new_size, &access, 1).result()?;
            sys::cuMemsetD8Async(new_va + old_size as u64, 0, new_size - old_size, self.stream).result()?;
            // The old range is no longer used by anyone: give it back.
            sys::cuMemAddressFree(old_va, old_size).result()?; // EXPECT: vmm_lifecycle
        }
        self.handles.push((extra, new_size - old_size));
        self.va = new_va;
        self.va_size = new_size;
        Ok(new_va)
    }
}

impl Drop for ParticleBuffer {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemUnmap(self.va, self.va_size);
            for &(h, _) in &self.handles {
                let _ = sys::cuMemRelease(h);
            }
            let _ = sys::cuMemAddressFree(self.va, self.va_size);
        }
    }
}
