// cudarc's `cuMemMap(..).result()` is `Err` where the map failed: on that arm the range is not
// mapped, and freeing it is the right roll-back. Where a later step failed (access refused), the
// map did happen: the range must be unmapped before it is freed. An arena that grows maps the
// next part of its reservation each time, at an offset that is not a constant: not the same
// range again.
use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::DriverError;

unsafe fn prop() -> sys::CUmemAllocationProp {
    unsafe {
        let mut prop: sys::CUmemAllocationProp = std::mem::zeroed();
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop
    }
}

fn ok_range_freed_where_the_map_failed(bytes: usize) -> Result<CUdeviceptr, DriverError> {
    let prop = unsafe { prop() };
    let (mut va, mut handle): (CUdeviceptr, CUmemGenericAllocationHandle) = (0, 0);
    unsafe {
        sys::cuMemAddressReserve(&mut va, bytes, 0, 0, 0).result()?;
        sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
        if let Err(e) = sys::cuMemMap(va, bytes, 0, handle, 0).result() {
            let _ = sys::cuMemAddressFree(va, bytes);
            let _ = sys::cuMemRelease(handle);
            return Err(e);
        }
        let desc = sys::CUmemAccessDesc {
            location: prop.location,
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        if let Err(e) = sys::cuMemSetAccess(va, bytes, &desc, 1).result() {
            let _ = sys::cuMemUnmap(va, bytes);
            let _ = sys::cuMemRelease(handle);
            let _ = sys::cuMemAddressFree(va, bytes);
            return Err(e);
        }
    }
    Ok(va)
}

fn fires_range_freed_where_access_was_refused(bytes: usize) -> Result<CUdeviceptr, DriverError> {
    let prop = unsafe { prop() };
    let (mut va, mut handle): (CUdeviceptr, CUmemGenericAllocationHandle) = (0, 0);
    unsafe {
        sys::cuMemAddressReserve(&mut va, bytes, 0, 0, 0).result()?;
        sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
        if let Err(e) = sys::cuMemMap(va, bytes, 0, handle, 0).result() {
            let _ = sys::cuMemAddressFree(va, bytes);
            let _ = sys::cuMemRelease(handle);
            return Err(e);
        }
        let desc = sys::CUmemAccessDesc {
            location: prop.location,
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        if let Err(e) = sys::cuMemSetAccess(va, bytes, &desc, 1).result() {
            let _ = sys::cuMemRelease(handle);
            let _ = sys::cuMemAddressFree(va, bytes); //~ vmm_lifecycle
            return Err(e);
        }
    }
    Ok(va)
}

struct Arena {
    base: CUdeviceptr,
    mapped: usize,
    chunks: Vec<CUmemGenericAllocationHandle>,
}

impl Arena {
    fn grow(&mut self, size: usize) -> Result<(), DriverError> {
        let prop = unsafe { prop() };
        let mut handle: CUmemGenericAllocationHandle = 0;
        let at = self.base + self.mapped as u64;
        unsafe {
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemMap(at, size, 0, handle, 0).result()?;
            let desc = sys::CUmemAccessDesc {
                location: prop.location,
                flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
            };
            sys::cuMemSetAccess(at, size, &desc, 1).result()?;
        }
        self.chunks.push(handle);
        self.mapped += size;
        Ok(())
    }
}

fn ok_arena_grown_twice(reserve: usize, chunk: usize) -> Result<Arena, DriverError> {
    let mut base: CUdeviceptr = 0;
    unsafe { sys::cuMemAddressReserve(&mut base, reserve, 0, 0, 0).result()? };
    let mut arena = Arena { base, mapped: 0, chunks: Vec::new() };
    arena.grow(chunk)?;
    arena.grow(chunk)?;
    Ok(arena)
}

/// The crate's own status check, as many projects write it: `Err` where the call failed.
fn check(status: sys::CUresult) -> Result<(), sys::CUresult> {
    if status == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(status) }
}

/// A map's status passed through a helper: the helper's `Err` is where the map failed.
fn ok_range_freed_where_the_checked_map_failed(bytes: usize) -> Result<CUdeviceptr, sys::CUresult> {
    let prop = unsafe { prop() };
    let (mut va, mut handle): (CUdeviceptr, CUmemGenericAllocationHandle) = (0, 0);
    unsafe {
        check(sys::cuMemAddressReserve(&mut va, bytes, 0, 0, 0))?;
        check(sys::cuMemCreate(&mut handle, bytes, &prop, 0))?;
        if let Err(e) = check(sys::cuMemMap(va, bytes, 0, handle, 0)) {
            sys::cuMemRelease(handle);
            sys::cuMemAddressFree(va, bytes);
            return Err(e);
        }
    }
    Ok(va)
}

/// ... while where the access check failed after it, the map happened.
fn fires_range_freed_where_the_checked_access_failed(bytes: usize) -> Result<CUdeviceptr, sys::CUresult> {
    let prop = unsafe { prop() };
    let (mut va, mut handle): (CUdeviceptr, CUmemGenericAllocationHandle) = (0, 0);
    let desc = sys::CUmemAccessDesc {
        location: prop.location,
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    };
    unsafe {
        check(sys::cuMemAddressReserve(&mut va, bytes, 0, 0, 0))?;
        check(sys::cuMemCreate(&mut handle, bytes, &prop, 0))?;
        check(sys::cuMemMap(va, bytes, 0, handle, 0))?;
        if let Err(e) = check(sys::cuMemSetAccess(va, bytes, &desc, 1)) {
            sys::cuMemRelease(handle);
            sys::cuMemAddressFree(va, bytes); //~ vmm_lifecycle
            return Err(e);
        }
    }
    Ok(va)
}

fn main() {}
