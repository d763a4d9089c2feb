//! case: a KV-cache block whose Drop frees the reserved range (cuMemAddressFree) before unmapping it
//! expect: vmm_lifecycle=1
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, DriverError};

pub trait DeviceRegion {
    fn device_ptr(&self) -> CUdeviceptr;
    fn bytes(&self) -> usize;
}

pub struct KvBlock {
    va: CUdeviceptr,
    bytes: usize,
    handle: sys::CUmemGenericAllocationHandle,
}

impl KvBlock {
    pub fn allocate(device: i32, bytes: usize) -> Result<KvBlock, DriverError> {
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        let (mut va, mut handle) = (0, 0);
        let desc = sys::CUmemAccessDesc { location: prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        unsafe {
            sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
            sys::cuMemAddressReserve(&mut va, bytes, 0, 0, 0).result()?;
            sys::cuMemMap(va, bytes, 0, handle, 0).result()?;
            sys::cuMemSetAccess(va, bytes, &desc, 1).result()?;
        }
        Ok(KvBlock { va, bytes, handle })
    }
}

impl DeviceRegion for KvBlock {
    fn device_ptr(&self) -> CUdeviceptr { self.va }
    fn bytes(&self) -> usize { self.bytes }
}

impl Drop for KvBlock {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemAddressFree(self.va, self.bytes); // EXPECT: vmm_lifecycle
            let _ = sys::cuMemUnmap(self.va, self.bytes);
            let _ = sys::cuMemRelease(self.handle);
        }
    }
}

fn zero_all<R: DeviceRegion>(regions: &[R]) -> Result<(), DriverError> {
    for r in regions {
        unsafe { sys::cuMemsetD8_v2(r.device_ptr(), 0, r.bytes()) }.result()?;
    }
    Ok(())
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let blocks = (0..8)
        .map(|_| KvBlock::allocate(ctx.cu_device(), 2 << 20))
        .collect::<Result<Vec<_>, _>>()?;
    zero_all(&blocks)?;
    drop(blocks); // every block's Drop runs here
    Ok(())
}
