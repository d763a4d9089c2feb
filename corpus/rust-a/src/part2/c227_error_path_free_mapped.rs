//! case: a VMM allocation helper whose cleanup on a failed cuMemSetAccess frees the reserved range while the mapping is still in place
//! expect: vmm_lifecycle=1
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, DriverError};

pub struct PeerShared {
    pub va: CUdeviceptr,
    pub size: usize,
    handle: sys::CUmemGenericAllocationHandle,
}

/// Maps `size` bytes on `owner` and makes them accessible from every device in `readers`.
pub fn map_shared(owner: i32, readers: &[i32], size: usize) -> Result<PeerShared, DriverError> {
    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = owner;
    let (mut va, mut handle) = (0, 0);
    unsafe {
        sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
        if let Err(e) = sys::cuMemAddressReserve(&mut va, size, 0, 0, 0).result() {
            let _ = sys::cuMemRelease(handle);
            return Err(e);
        }
        sys::cuMemMap(va, size, 0, handle, 0).result()?;
    }
    let descs: Vec<sys::CUmemAccessDesc> = std::iter::once(owner)
        .chain(readers.iter().copied())
        .map(|d| sys::CUmemAccessDesc {
            location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: d },
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        })
        .collect();
    let granted = unsafe { sys::cuMemSetAccess(va, size, descs.as_ptr(), descs.len()) }.result();
    if let Err(e) = granted {
        // a reader without peer access: give everything back
        unsafe {
            let _ = sys::cuMemRelease(handle);
            let _ = sys::cuMemAddressFree(va, size); // EXPECT: vmm_lifecycle
        }
        return Err(e);
    }
    Ok(PeerShared { va, size, handle })
}

impl Drop for PeerShared {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemUnmap(self.va, self.size);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.va, self.size);
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let peers: Vec<i32> = (1..CudaContext::device_count()?).collect();
    let shared = map_shared(ctx.cu_device(), &peers, 4 << 20)?;
    println!("shared at {:#x} ({} bytes)", shared.va, shared.size);
    Ok(())
}
