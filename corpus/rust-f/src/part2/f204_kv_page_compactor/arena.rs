use super::Res;
use cudarc::driver::sys;

pub struct KvArena {
    pub base: sys::CUdeviceptr,
    pub page_bytes: usize,
    pub num_pages: usize,
    pub handles: Vec<Option<sys::CUmemGenericAllocationHandle>>,
    device: sys::CUdevice,
}

pub fn page_prop(device: sys::CUdevice) -> sys::CUmemAllocationProp {
    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop
}

pub fn rw_access(device: sys::CUdevice) -> sys::CUmemAccessDesc {
    let mut desc: sys::CUmemAccessDesc = unsafe { std::mem::zeroed() };
    desc.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    desc.location.id = device;
    desc.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    desc
}

impl KvArena {
    pub fn new(device: sys::CUdevice, num_pages: usize) -> Res<Self> {
        let prop = page_prop(device);
        let mut gran = 0usize;
        unsafe {
            sys::cuMemGetAllocationGranularity(
                &mut gran,
                &prop,
                sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED,
            )
            .result()?;
        }
        let page_bytes = gran.max(2 << 20);
        let mut base = 0;
        unsafe { sys::cuMemAddressReserve(&mut base, page_bytes * num_pages, 0, 0, 0) }.result()?;
        Ok(KvArena { base, page_bytes, num_pages, handles: vec![None; num_pages], device })
    }

    pub fn device(&self) -> sys::CUdevice {
        self.device
    }

    pub fn page_va(&self, page: usize) -> sys::CUdeviceptr {
        self.base + (page * self.page_bytes) as u64
    }

    pub fn is_mapped(&self, page: usize) -> bool {
        self.handles[page].is_some()
    }

    /// Backs `page` with fresh device memory.
    pub fn populate(&mut self, page: usize) -> Res<()> {
        let prop = page_prop(self.device);
        let mut handle = 0;
        let va = self.page_va(page);
        unsafe {
            sys::cuMemCreate(&mut handle, self.page_bytes, &prop, 0).result()?;
            sys::cuMemMap(va, self.page_bytes, 0, handle, 0).result()?;
            let access = rw_access(self.device);
            sys::cuMemSetAccess(va, self.page_bytes, &access, 1).result()?;
        }
        self.handles[page] = Some(handle);
        Ok(())
    }
}

impl Drop for KvArena {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            for page in 0..self.num_pages {
                if let Some(h) = self.handles[page].take() {
                    let _ = sys::cuMemUnmap(self.page_va(page), self.page_bytes);
                    let _ = sys::cuMemRelease(h);
                }
            }
            let _ = sys::cuMemAddressFree(self.base, self.page_bytes * self.num_pages);
        }
    }
}
