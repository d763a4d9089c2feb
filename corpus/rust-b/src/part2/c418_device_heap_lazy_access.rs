//! case: a growable device heap that grants access lazily (only before downloads); clear() memsets the freshly committed mapping before any cuMemSetAccess
//! expect: vmm_lifecycle=1
use cudarc::driver::{sys, DriverError};

pub struct DeviceHeap {
    dev: i32,
    va: sys::CUdeviceptr,
    reserved: usize,
    committed: usize,
    handles: Vec<(sys::CUmemGenericAllocationHandle, usize)>,
    access_granted: bool,
}

impl DeviceHeap {
    fn prop(&self) -> sys::CUmemAllocationProp {
        sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: self.dev },
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        }
    }

    pub fn reserve(dev: i32, max_bytes: usize) -> Result<Self, DriverError> {
        let mut va = 0;
        unsafe { sys::cuMemAddressReserve(&mut va, max_bytes, 0, 0, 0).result()? };
        Ok(Self { dev, va, reserved: max_bytes, committed: 0, handles: Vec::new(), access_granted: false })
    }

    /// Backs `bytes` more of the reservation with physical memory.
    pub fn commit(&mut self, bytes: usize) -> Result<(), DriverError> {
        assert!(self.committed + bytes <= self.reserved);
        let prop = self.prop();
        let mut h = 0;
        unsafe {
            sys::cuMemCreate(&mut h, bytes, &prop, 0).result()?;
            sys::cuMemMap(self.va + self.committed as u64, bytes, 0, h, 0).result()?;
        }
        self.handles.push((h, bytes));
        self.committed += bytes;
        self.access_granted = false;
        Ok(())
    }

    fn ensure_access(&mut self) -> Result<(), DriverError> {
        if !self.access_granted {
            let desc = sys::CUmemAccessDesc {
                location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: self.dev },
                flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
            };
            unsafe { sys::cuMemSetAccess(self.va, self.committed, &desc, 1).result()? };
            self.access_granted = true;
        }
        Ok(())
    }

    pub fn clear(&mut self, stream: sys::CUstream) -> Result<(), DriverError> {
        unsafe { sys::cuMemsetD32Async(self.va, 0, self.committed / 4, stream).result() } // EXPECT: vmm_lifecycle
    }

    pub fn download_head(&mut self, out: &mut [u32; 16], stream: sys::CUstream) -> Result<(), DriverError> {
        self.ensure_access()?;
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(out.as_mut_ptr().cast(), self.va, 64, stream).result()?;
            sys::cuStreamSynchronize(stream).result()
        }
    }
}

impl Drop for DeviceHeap {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let mut off = 0u64;
            for (h, bytes) in self.handles.drain(..) {
                let _ = sys::cuMemUnmap(self.va + off, bytes);
                let _ = sys::cuMemRelease(h);
                off += bytes as u64;
            }
            let _ = sys::cuMemAddressFree(self.va, self.reserved);
        }
    }
}

pub fn warm_up(dev: i32, stream: sys::CUstream) -> Result<[u32; 16], DriverError> {
    let mut heap = DeviceHeap::reserve(dev, 1 << 30)?;
    heap.commit(64 << 20)?;
    heap.clear(stream)?;
    let mut head = [0u32; 16];
    heap.download_head(&mut head, stream)?;
    Ok(head)
}
