//! case: paged-attention KV page pool grown with VMM through hand-written libcuda bindings; `grow` zeroes the freshly mapped pages with cuMemsetD32Async before cuMemSetAccess has granted the device access to them
//! expect: vmm_lifecycle=1

use std::ffi::c_void;

use cudarc::driver::sys::{
    CUdeviceptr, CUmemAccessDesc, CUmemAccess_flags, CUmemAllocationHandleType, CUmemAllocationProp,
    CUmemAllocationProp_st__bindgen_ty_1, CUmemAllocationType, CUmemGenericAllocationHandle, CUmemLocation,
    CUmemLocationType, CUresult, CUstream,
};

#[link(name = "cuda")]
unsafe extern "C" {
    fn cuMemAddressReserve(ptr: *mut CUdeviceptr, size: usize, alignment: usize, addr: CUdeviceptr, flags: u64) -> CUresult;
    fn cuMemAddressFree(ptr: CUdeviceptr, size: usize) -> CUresult;
    fn cuMemCreate(handle: *mut CUmemGenericAllocationHandle, size: usize, prop: *const CUmemAllocationProp, flags: u64) -> CUresult;
    fn cuMemRelease(handle: CUmemGenericAllocationHandle) -> CUresult;
    fn cuMemMap(ptr: CUdeviceptr, size: usize, offset: usize, handle: CUmemGenericAllocationHandle, flags: u64) -> CUresult;
    fn cuMemUnmap(ptr: CUdeviceptr, size: usize) -> CUresult;
    fn cuMemSetAccess(ptr: CUdeviceptr, size: usize, desc: *const CUmemAccessDesc, count: usize) -> CUresult;
    fn cuMemsetD32Async(dst: CUdeviceptr, value: u32, count: usize, stream: CUstream) -> CUresult;
    fn cuStreamSynchronize(stream: CUstream) -> CUresult;
}

fn check(rc: CUresult) -> Result<(), CUresult> {
    match rc {
        CUresult::CUDA_SUCCESS => Ok(()),
        e => Err(e),
    }
}

pub struct KvPagePool {
    device: i32,
    stream: CUstream,
    base: CUdeviceptr,
    capacity_bytes: usize,
    page_bytes: usize,
    segment_bytes: usize,
    segments: Vec<CUmemGenericAllocationHandle>,
    free_pages: Vec<u32>,
}

impl KvPagePool {
    /// `stream` is the engine's non-blocking stream; `segment_bytes` a multiple of the granularity.
    pub fn new(device: i32, stream: CUstream, capacity_bytes: usize, segment_bytes: usize, page_bytes: usize) -> Result<Self, CUresult> {
        let mut base = 0;
        unsafe { check(cuMemAddressReserve(&mut base, capacity_bytes, 0, 0, 0))? };
        Ok(KvPagePool { device, stream, base, capacity_bytes, page_bytes, segment_bytes, segments: Vec::new(), free_pages: Vec::new() })
    }

    fn prop(&self) -> CUmemAllocationProp {
        CUmemAllocationProp {
            type_: CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location: CUmemLocation { type_: CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: self.device },
            win32HandleMetaData: std::ptr::null_mut::<c_void>(),
            allocFlags: CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        }
    }

    /// Maps one more segment at the end of the pool and puts its pages on the free list.
    fn grow(&mut self) -> Result<(), CUresult> {
        let offset = self.segments.len() * self.segment_bytes;
        if offset + self.segment_bytes > self.capacity_bytes {
            return Err(CUresult::CUDA_ERROR_OUT_OF_MEMORY);
        }
        let va = self.base + offset as u64;
        let mut handle = 0;
        let access = CUmemAccessDesc {
            location: CUmemLocation { type_: CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: self.device },
            flags: CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        unsafe {
            check(cuMemCreate(&mut handle, self.segment_bytes, &self.prop(), 0))?;
            if let Err(e) = check(cuMemMap(va, self.segment_bytes, 0, handle, 0)) {
                cuMemRelease(handle);
                return Err(e);
            }
            // from here on Drop unmaps and releases the segment, whatever happens below
            self.segments.push(handle);
            // attention kernels treat a zero page as "no tokens yet"
            check(cuMemsetD32Async(va, 0, self.segment_bytes / 4, self.stream))?; // EXPECT: vmm_lifecycle
            check(cuMemSetAccess(va, self.segment_bytes, &access, 1))?;
        }
        let first = (offset / self.page_bytes) as u32;
        let count = (self.segment_bytes / self.page_bytes) as u32;
        self.free_pages.extend((first..first + count).rev());
        Ok(())
    }

    pub fn take_page(&mut self) -> Result<CUdeviceptr, CUresult> {
        if self.free_pages.is_empty() {
            self.grow()?;
        }
        let page = self.free_pages.pop().expect("grow added pages");
        Ok(self.base + page as u64 * self.page_bytes as u64)
    }

    pub fn give_back(&mut self, page_ptr: CUdeviceptr) {
        self.free_pages.push(((page_ptr - self.base) / self.page_bytes as u64) as u32);
    }
}

impl Drop for KvPagePool {
    fn drop(&mut self) {
        unsafe {
            cuStreamSynchronize(self.stream);
            for (i, h) in self.segments.drain(..).enumerate().rev() {
                cuMemUnmap(self.base + (i * self.segment_bytes) as u64, self.segment_bytes);
                cuMemRelease(h);
            }
            cuMemAddressFree(self.base, self.capacity_bytes);
        }
    }
}
