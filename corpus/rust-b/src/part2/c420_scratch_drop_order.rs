//! case: a per-layer VMM scratch space whose Drop gives the address range back before unmapping it
//! expect: vmm_lifecycle=1
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaStream, DriverError};

pub struct LayerScratch {
    stream: Arc<CudaStream>,
    va: sys::CUdeviceptr,
    bytes: usize,
    handle: sys::CUmemGenericAllocationHandle,
}

impl LayerScratch {
    pub fn new(ctx: &Arc<CudaContext>, bytes: usize) -> Result<Self, DriverError> {
        let loc = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: ctx.cu_device() };
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location: loc,
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let desc = sys::CUmemAccessDesc { location: loc, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let (mut va, mut handle) = (0, 0);
        unsafe {
            sys::cuMemAddressReserve(&mut va, bytes, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
            sys::cuMemMap(va, bytes, 0, handle, 0).result()?;
            sys::cuMemSetAccess(va, bytes, &desc, 1).result()?;
        }
        Ok(Self { stream: ctx.new_stream()?, va, bytes, handle })
    }

    pub fn zero(&self) -> Result<(), DriverError> {
        unsafe { sys::cuMemsetD8Async(self.va, 0, self.bytes, self.stream.cu_stream()).result() }
    }
}

impl Drop for LayerScratch {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            // give the address space back first so other layers can reserve it
            let _ = sys::cuMemAddressFree(self.va, self.bytes); // EXPECT: vmm_lifecycle
            let _ = sys::cuMemUnmap(self.va, self.bytes);
            let _ = sys::cuMemRelease(self.handle);
        }
    }
}

pub fn forward(ctx: &Arc<CudaContext>, layers: &[usize]) -> Result<usize, DriverError> {
    let mut peak = 0;
    for &bytes in layers {
        let scratch = LayerScratch::new(ctx, bytes)?;
        scratch.zero()?;
        peak = peak.max(bytes);
        // dropped at the end of each iteration
    }
    Ok(peak)
}
