//! case: a hand-written libcuda FFI arena reserves a range, creates and maps a physical chunk, and zero-fills it with `cuMemsetD32Async` before `grant_access` has called `cuMemSetAccess`: a fresh mapping has no access, so the memset is refused
//! expect: vmm_lifecycle=1

use std::ffi::c_void;

type CUresult = i32;
type CUdeviceptr = u64;
type CUstream = *mut c_void;
type CUmemGenericAllocationHandle = u64;

#[repr(C)]
#[derive(Clone, Copy)]
struct CUmemLocation {
    type_: u32, // CU_MEM_LOCATION_TYPE_DEVICE = 1
    id: i32,
}

#[repr(C)]
struct CUmemAllocationProp {
    type_: u32, // CU_MEM_ALLOCATION_TYPE_PINNED = 1
    requested_handle_types: u32,
    location: CUmemLocation,
    win32_handle_meta_data: *mut c_void,
    alloc_flags: [u8; 8],
}

#[repr(C)]
struct CUmemAccessDesc {
    location: CUmemLocation,
    flags: u32, // CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3
}

#[link(name = "cuda")]
unsafe extern "C" {
    fn cuMemGetAllocationGranularity(granularity: *mut usize, prop: *const CUmemAllocationProp, option: u32) -> CUresult;
    fn cuMemAddressReserve(ptr: *mut CUdeviceptr, size: usize, alignment: usize, addr: CUdeviceptr, flags: u64) -> CUresult;
    fn cuMemCreate(handle: *mut CUmemGenericAllocationHandle, size: usize, prop: *const CUmemAllocationProp, flags: u64) -> CUresult;
    fn cuMemMap(ptr: CUdeviceptr, size: usize, offset: usize, handle: CUmemGenericAllocationHandle, flags: u64) -> CUresult;
    fn cuMemSetAccess(ptr: CUdeviceptr, size: usize, desc: *const CUmemAccessDesc, count: usize) -> CUresult;
    fn cuMemsetD32Async(dst: CUdeviceptr, ui: u32, n: usize, stream: CUstream) -> CUresult;
    fn cuStreamSynchronize(stream: CUstream) -> CUresult;
    fn cuMemUnmap(ptr: CUdeviceptr, size: usize) -> CUresult;
    fn cuMemRelease(handle: CUmemGenericAllocationHandle) -> CUresult;
    fn cuMemAddressFree(ptr: CUdeviceptr, size: usize) -> CUresult;
}

fn check(r: CUresult, what: &'static str) -> Result<(), String> {
    if r == 0 { Ok(()) } else { Err(format!("{what} failed: CUresult {r}")) }
}

pub struct Arena {
    base: CUdeviceptr,
    size: usize,
    handle: CUmemGenericAllocationHandle,
    device: i32,
}

impl Arena {
    fn prop(device: i32) -> CUmemAllocationProp {
        CUmemAllocationProp {
            type_: 1,
            requested_handle_types: 0,
            location: CUmemLocation { type_: 1, id: device },
            win32_handle_meta_data: std::ptr::null_mut(),
            alloc_flags: [0; 8],
        }
    }

    fn grant_access(&self) -> Result<(), String> {
        let desc = CUmemAccessDesc { location: CUmemLocation { type_: 1, id: self.device }, flags: 3 };
        check(unsafe { cuMemSetAccess(self.base, self.size, &desc, 1) }, "cuMemSetAccess")
    }

    pub fn new_zeroed(device: i32, min_size: usize, stream: CUstream) -> Result<Arena, String> {
        let prop = Self::prop(device);
        let mut gran = 0usize;
        check(unsafe { cuMemGetAllocationGranularity(&mut gran, &prop, 0) }, "granularity")?;
        let size = min_size.div_ceil(gran) * gran;

        let mut base: CUdeviceptr = 0;
        let mut handle: CUmemGenericAllocationHandle = 0;
        unsafe {
            check(cuMemAddressReserve(&mut base, size, 0, 0, 0), "cuMemAddressReserve")?;
            check(cuMemCreate(&mut handle, size, &prop, 0), "cuMemCreate")?;
            check(cuMemMap(base, size, 0, handle, 0), "cuMemMap")?;
            // scrub the arena so stale activations never leak between requests
            check(cuMemsetD32Async(base, 0, size / 4, stream), "cuMemsetD32Async")?; // EXPECT: vmm_lifecycle
        }
        let arena = Arena { base, size, handle, device };
        arena.grant_access()?;
        check(unsafe { cuStreamSynchronize(stream) }, "cuStreamSynchronize")?;
        Ok(arena)
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        unsafe {
            cuMemUnmap(self.base, self.size);
            cuMemRelease(self.handle);
            cuMemAddressFree(self.base, self.size);
        }
    }
}
