use cudarc::driver::sys;

use super::Result;

pub struct KvArena {
    pub dev: sys::CUdevice,
    pub stream: sys::CUstream,
    pub base: sys::CUdeviceptr,
    pub chunk_bytes: usize,
    pub handles: Vec<sys::CUmemGenericAllocationHandle>,
}

pub fn prop(dev: sys::CUdevice) -> sys::CUmemAllocationProp {
    sys::CUmemAllocationProp {
        type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
        location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev },
        win32HandleMetaData: std::ptr::null_mut(),
        allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
    }
}

impl KvArena {
    pub fn new(dev: sys::CUdevice, stream: sys::CUstream, chunks: usize) -> Result<Self> {
        let p = prop(dev);
        let mut chunk_bytes = 0usize;
        let mut base = 0;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut chunk_bytes, &p, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
            sys::cuMemAddressReserve(&mut base, chunks * chunk_bytes, 0, 0, 0).result()?;
        }
        let mut handles = Vec::with_capacity(chunks);
        for i in 0..chunks {
            let mut h = 0;
            unsafe {
                sys::cuMemCreate(&mut h, chunk_bytes, &p, 0).result()?;
                sys::cuMemMap(base + (i * chunk_bytes) as u64, chunk_bytes, 0, h, 0).result()?;
            }
            handles.push(h);
        }
        let arena = KvArena { dev, stream, base, chunk_bytes, handles };
        arena.grant(arena.base, chunks * chunk_bytes)?;
        Ok(arena)
    }

    pub fn chunk_va(&self, i: usize) -> sys::CUdeviceptr {
        self.base + (i * self.chunk_bytes) as u64
    }

    pub fn grant(&self, va: sys::CUdeviceptr, bytes: usize) -> Result<()> {
        let desc = sys::CUmemAccessDesc {
            location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: self.dev },
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        unsafe { sys::cuMemSetAccess(va, bytes, &desc, 1).result()? };
        Ok(())
    }
}

impl Drop for KvArena {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            for (i, &h) in self.handles.iter().enumerate() {
                let _ = sys::cuMemUnmap(self.base + (i * self.chunk_bytes) as u64, self.chunk_bytes);
                let _ = sys::cuMemRelease(h);
            }
            let _ = sys::cuMemAddressFree(self.base, self.handles.len() * self.chunk_bytes);
        }
    }
}
