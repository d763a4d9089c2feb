//! case: a VMM growable buffer (reserve big, map chunks on demand) grants access in `new` for the first chunk, but `grow` maps the next chunk and zeroes it with a memset without ever calling cuMemSetAccess for the new mapping
//! expect: vmm_lifecycle=1

use std::mem::MaybeUninit;

use cudarc::driver::{sys, DriverError};

pub struct GrowableBuffer {
    device: sys::CUdevice,
    va: sys::CUdeviceptr,
    reserved: usize,
    committed: usize,
    chunk: usize,
    handles: Vec<sys::CUmemGenericAllocationHandle>,
}

fn alloc_prop(device: sys::CUdevice) -> sys::CUmemAllocationProp {
    let mut prop: sys::CUmemAllocationProp = unsafe { MaybeUninit::zeroed().assume_init() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop
}

fn rw_access(device: sys::CUdevice) -> sys::CUmemAccessDesc {
    sys::CUmemAccessDesc {
        location: alloc_prop(device).location,
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    }
}

impl GrowableBuffer {
    pub fn new(device: sys::CUdevice, max_bytes: usize) -> Result<Self, DriverError> {
        let prop = alloc_prop(device);
        let mut chunk = 0usize;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut chunk, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
        }
        let reserved = max_bytes.div_ceil(chunk) * chunk;
        let mut va = 0;
        let mut first = 0;
        unsafe {
            sys::cuMemAddressReserve(&mut va, reserved, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut first, chunk, &prop, 0).result()?;
            sys::cuMemMap(va, chunk, 0, first, 0).result()?;
            sys::cuMemSetAccess(va, chunk, &rw_access(device), 1).result()?;
        }
        Ok(Self { device, va, reserved, committed: chunk, chunk, handles: vec![first] })
    }

    pub fn device_ptr(&self) -> sys::CUdeviceptr {
        self.va
    }

    pub fn capacity(&self) -> usize {
        self.committed
    }

    /// Makes at least `bytes` usable; new memory is zeroed on `stream`.
    pub fn grow(&mut self, bytes: usize, stream: sys::CUstream) -> Result<(), DriverError> {
        if bytes <= self.committed {
            return Ok(());
        }
        if bytes > self.reserved {
            return Err(DriverError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY));
        }
        let prop = alloc_prop(self.device);
        while self.committed < bytes {
            let mut handle = 0;
            let tail = self.va + self.committed as u64;
            unsafe {
                sys::cuMemCreate(&mut handle, self.chunk, &prop, 0).result()?;
                sys::cuMemMap(tail, self.chunk, 0, handle, 0).result()?;
                sys::cuMemsetD32Async(tail, 0, self.chunk / 4, stream).result()?; // EXPECT: vmm_lifecycle
            }
            self.handles.push(handle);
            self.committed += self.chunk;
        }
        Ok(())
    }
}

impl Drop for GrowableBuffer {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            for (i, h) in self.handles.drain(..).enumerate() {
                let _ = sys::cuMemUnmap(self.va + (i * self.chunk) as u64, self.chunk);
                let _ = sys::cuMemRelease(h);
            }
            let _ = sys::cuMemAddressFree(self.va, self.reserved);
        }
    }
}
