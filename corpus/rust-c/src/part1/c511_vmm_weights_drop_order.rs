//! case: model weights in a VMM mapping through the case's own `extern "C"` libcuda bindings; the `Drop` frees the address reservation before unmapping it (cuMemAddressFree of a still-mapped range fails and the range leaks)
//! expect: vmm_lifecycle=1
use std::ffi::{c_int, c_uint, c_ulonglong, c_void};

type CUresult = c_int;
type CUdeviceptr = c_ulonglong;
type CUstream = *mut c_void;
type CUmemGenericAllocationHandle = c_ulonglong;

#[repr(C)]
#[derive(Clone, Copy)]
struct CUmemLocation {
    kind: c_int, // CU_MEM_LOCATION_TYPE_DEVICE = 1
    id: c_int,
}

#[repr(C)]
struct CUmemAllocationProp {
    kind: c_int, // CU_MEM_ALLOCATION_TYPE_PINNED = 1
    requested_handle_types: c_int,
    location: CUmemLocation,
    win32_handle_meta_data: *mut c_void,
    alloc_flags: [u8; 8],
}

#[repr(C)]
struct CUmemAccessDesc {
    location: CUmemLocation,
    flags: c_int, // CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3
}

unsafe extern "C" {
    fn cuMemAddressReserve(ptr: *mut CUdeviceptr, size: usize, align: usize, addr: CUdeviceptr, flags: c_ulonglong) -> CUresult;
    fn cuMemCreate(handle: *mut CUmemGenericAllocationHandle, size: usize, prop: *const CUmemAllocationProp, flags: c_ulonglong) -> CUresult;
    fn cuMemMap(ptr: CUdeviceptr, size: usize, offset: usize, handle: CUmemGenericAllocationHandle, flags: c_ulonglong) -> CUresult;
    fn cuMemSetAccess(ptr: CUdeviceptr, size: usize, desc: *const CUmemAccessDesc, count: usize) -> CUresult;
    fn cuMemcpyHtoDAsync_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize, stream: CUstream) -> CUresult;
    fn cuStreamSynchronize(stream: CUstream) -> CUresult;
    fn cuMemUnmap(ptr: CUdeviceptr, size: usize) -> CUresult;
    fn cuMemRelease(handle: CUmemGenericAllocationHandle) -> CUresult;
    fn cuMemAddressFree(ptr: CUdeviceptr, size: usize) -> CUresult;
    fn cuMemHostAlloc(pp: *mut *mut c_void, bytes: usize, flags: c_uint) -> CUresult;
    fn cuMemFreeHost(p: *mut c_void) -> CUresult;
}

pub struct WeightSlab {
    va: CUdeviceptr,
    size: usize,
    handle: CUmemGenericAllocationHandle,
    stream: CUstream,
}

impl WeightSlab {
    /// `size` is a multiple of the allocation granularity (checked by the loader).
    pub fn load(device: i32, weights: &[u8], size: usize, stream: CUstream) -> Result<Self, CUresult> {
        let check = |r: CUresult| if r == 0 { Ok(()) } else { Err(r) };
        let loc = CUmemLocation { kind: 1, id: device };
        let prop = CUmemAllocationProp { kind: 1, requested_handle_types: 0, location: loc, win32_handle_meta_data: std::ptr::null_mut(), alloc_flags: [0; 8] };
        let mut va = 0;
        let mut handle = 0;
        let mut staging: *mut c_void = std::ptr::null_mut();
        unsafe {
            check(cuMemAddressReserve(&mut va, size, 0, 0, 0))?;
            check(cuMemCreate(&mut handle, size, &prop, 0))?;
            check(cuMemMap(va, size, 0, handle, 0))?;
            check(cuMemSetAccess(va, size, &CUmemAccessDesc { location: loc, flags: 3 }, 1))?;
            check(cuMemHostAlloc(&mut staging, weights.len(), 0))?;
            std::ptr::copy_nonoverlapping(weights.as_ptr(), staging as *mut u8, weights.len());
            check(cuMemcpyHtoDAsync_v2(va, staging, weights.len(), stream))?;
            check(cuStreamSynchronize(stream))?;
            check(cuMemFreeHost(staging))?;
        }
        Ok(Self { va, size, handle, stream })
    }

    pub fn device_ptr(&self) -> CUdeviceptr {
        self.va
    }
}

impl Drop for WeightSlab {
    fn drop(&mut self) {
        unsafe {
            cuStreamSynchronize(self.stream);
            cuMemAddressFree(self.va, self.size); // EXPECT: vmm_lifecycle
            cuMemUnmap(self.va, self.size);
            cuMemRelease(self.handle);
        }
    }
}
