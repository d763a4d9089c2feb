//! case: a region allocator whose error branch (cuMemSetAccess refused) frees the reserved range without unmapping the mapping it just made
//! expect: vmm_lifecycle=1
use cudarc::driver::{sys, DriverError};

#[derive(Debug)]
pub struct Region {
    pub va: sys::CUdeviceptr,
    pub bytes: usize,
    handle: sys::CUmemGenericAllocationHandle,
}

#[derive(Debug)]
pub enum RegionError {
    Create(DriverError),
    Reserve(DriverError),
    Map(DriverError),
    Access(DriverError),
}

/// Maps `bytes` of device memory for `dev` and every peer in `peers`.
pub fn map_region(dev: i32, peers: &[i32], bytes: usize) -> Result<Region, RegionError> {
    let loc = |id: i32| sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id };
    let prop = sys::CUmemAllocationProp {
        type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
        location: loc(dev),
        win32HandleMetaData: std::ptr::null_mut(),
        allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
    };
    let descs: Vec<sys::CUmemAccessDesc> = std::iter::once(dev)
        .chain(peers.iter().copied())
        .map(|id| sys::CUmemAccessDesc { location: loc(id), flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE })
        .collect();
    let (mut handle, mut va) = (0, 0);
    unsafe {
        sys::cuMemCreate(&mut handle, bytes, &prop, 0).result().map_err(RegionError::Create)?;
        if let Err(e) = sys::cuMemAddressReserve(&mut va, bytes, 0, 0, 0).result() {
            let _ = sys::cuMemRelease(handle);
            return Err(RegionError::Reserve(e));
        }
        if let Err(e) = sys::cuMemMap(va, bytes, 0, handle, 0).result() {
            let _ = sys::cuMemAddressFree(va, bytes);
            let _ = sys::cuMemRelease(handle);
            return Err(RegionError::Map(e));
        }
        if let Err(e) = sys::cuMemSetAccess(va, bytes, descs.as_ptr(), descs.len()).result() {
            // a peer without P2P support: give everything back
            let _ = sys::cuMemRelease(handle);
            let _ = sys::cuMemAddressFree(va, bytes); // EXPECT: vmm_lifecycle
            return Err(RegionError::Access(e));
        }
    }
    Ok(Region { va, bytes, handle })
}

pub fn unmap_region(r: Region) -> Result<(), DriverError> {
    unsafe {
        sys::cuCtxSynchronize().result()?;
        sys::cuMemUnmap(r.va, r.bytes).result()?;
        sys::cuMemRelease(r.handle).result()?;
        sys::cuMemAddressFree(r.va, r.bytes).result()
    }
}

pub fn try_shared_region(dev: i32, peers: &[i32]) -> Result<usize, RegionError> {
    let region = match map_region(dev, peers, 64 << 20) {
        Ok(r) => r,
        Err(RegionError::Access(_)) if !peers.is_empty() => map_region(dev, &[], 64 << 20)?,
        Err(e) => return Err(e),
    };
    let bytes = region.bytes;
    unmap_region(region).map_err(RegionError::Map)?;
    Ok(bytes)
}
