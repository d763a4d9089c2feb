//! case: a per-request scratch region built on the VMM API (cudarc `driver::sys`) is torn down in Drop by releasing the physical handle and freeing the reserved range, without `cuMemUnmap`: releasing the handle does not unmap, so `cuMemAddressFree` gets a range that is still mapped (CUDA_ERROR_INVALID_VALUE, the range leaks)
//! expect: vmm_lifecycle=1

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle, CUstream};
use cudarc::driver::DriverError;

pub struct Scratch {
    va: CUdeviceptr,
    size: usize,
    handle: CUmemGenericAllocationHandle,
    stream: CUstream,
}

fn device_prop(device: i32) -> sys::CUmemAllocationProp {
    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop
}

impl Scratch {
    pub fn new(device: i32, bytes: usize, stream: CUstream) -> Result<Scratch, DriverError> {
        let prop = device_prop(device);
        let mut gran = 0usize;
        unsafe {
            sys::cuMemGetAllocationGranularity(
                &mut gran,
                &prop,
                sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM,
            )
            .result()?;
        }
        let size = bytes.div_ceil(gran) * gran;
        let (mut va, mut handle) = (0, 0);
        let access = sys::CUmemAccessDesc {
            location: prop.location,
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        unsafe {
            sys::cuMemAddressReserve(&mut va, size, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemMap(va, size, 0, handle, 0).result()?;
            sys::cuMemSetAccess(va, size, &access, 1).result()?;
            sys::cuMemsetD8Async(va, 0, size, stream).result()?;
        }
        Ok(Scratch { va, size, handle, stream })
    }

    pub fn ptr(&self) -> CUdeviceptr {
        self.va
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        unsafe {
            // work queued on the scratch must finish before it goes away
            let _ = sys::cuStreamSynchronize(self.stream);
            // the handle is the memory: dropping it gives the pages back
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.va, self.size); // EXPECT: vmm_lifecycle
        }
    }
}

pub fn with_scratch<R>(device: i32, bytes: usize, stream: CUstream, f: impl FnOnce(CUdeviceptr) -> R) -> Result<R, DriverError> {
    let scratch = Scratch::new(device, bytes, stream)?;
    Ok(f(scratch.ptr()))
}
