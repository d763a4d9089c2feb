//! case: model-weight swapper for a multi-model inference server (VMM via cudarc's driver sys layer): evicting a model launches a checksum kernel over its mapping and unmaps it right away, without waiting for the kernel; load's rollback path (cuMemSetAccess failed) frees the reservation before unmapping it, while migrate unmaps first (fine)
//! expect: missing_sync=1, vmm_lifecycle=1

mod region;

use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmemGenericAllocationHandle, CUresult, CUstream};
use region::{access_rw, alloc_prop, granularity, ok};
use std::collections::HashMap;
use std::ffi::c_void;

pub use region::CHECKSUM_SRC;

pub struct ResidentModel {
    base: CUdeviceptr,
    size: usize,
    handle: CUmemGenericAllocationHandle,
}

pub struct WeightSwapper {
    device: i32,
    stream: CUstream,
    checksum: CUfunction,
    d_sum: CUdeviceptr,
    resident: HashMap<String, ResidentModel>,
}

impl WeightSwapper {
    pub fn new(device: i32, stream: CUstream, checksum: CUfunction, d_sum: CUdeviceptr) -> Self {
        WeightSwapper { device, stream, checksum, d_sum, resident: HashMap::new() }
    }

    pub fn load(&mut self, name: &str, bytes: usize) -> Result<CUdeviceptr, CUresult> {
        let prop = alloc_prop(self.device);
        let size = bytes.div_ceil(granularity(&prop)?) * granularity(&prop)?;
        let access = access_rw(self.device);
        let mut base: CUdeviceptr = 0;
        let mut handle: CUmemGenericAllocationHandle = 0;
        unsafe {
            ok(sys::cuMemAddressReserve(&mut base, size, 0, 0, 0))?;
            ok(sys::cuMemCreate(&mut handle, size, &prop, 0))?;
            ok(sys::cuMemMap(base, size, 0, handle, 0))?;
            if let Err(e) = ok(sys::cuMemSetAccess(base, size, &access, 1)) {
                // Roll back everything made above.
                sys::cuMemAddressFree(base, size); // EXPECT: vmm_lifecycle
                sys::cuMemUnmap(base, size);
                sys::cuMemRelease(handle);
                return Err(e);
            }
        }
        self.resident.insert(name.to_string(), ResidentModel { base, size, handle });
        Ok(base)
    }

    /// Drops a model's weights, recording a checksum of what was resident for the audit log.
    pub fn evict(&mut self, name: &str) -> Result<(), CUresult> {
        let Some(model) = self.resident.remove(name) else { return Ok(()) };
        let mut weights = model.base;
        let mut words = (model.size / 4) as u32;
        let mut out = self.d_sum;
        let mut params: [*mut c_void; 3] = [
            &mut weights as *mut _ as *mut c_void,
            &mut words as *mut _ as *mut c_void,
            &mut out as *mut _ as *mut c_void,
        ];
        unsafe {
            ok(sys::cuLaunchKernel(self.checksum, 120, 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), std::ptr::null_mut()))?;
            ok(sys::cuMemUnmap(model.base, model.size))?; // EXPECT: missing_sync
            ok(sys::cuMemRelease(model.handle))?;
            ok(sys::cuMemAddressFree(model.base, model.size))?;
        }
        Ok(())
    }

    /// Moves a model to a fresh, larger reservation (room for LoRA adapters behind it).
    pub fn migrate(&mut self, name: &str, extra: usize) -> Result<CUdeviceptr, CUresult> {
        let Some(model) = self.resident.remove(name) else { return Err(CUresult::CUDA_ERROR_NOT_FOUND) };
        let prop = alloc_prop(self.device);
        let access = access_rw(self.device);
        let new_reserved = model.size + extra.div_ceil(granularity(&prop)?) * granularity(&prop)?;
        let mut new_base: CUdeviceptr = 0;
        unsafe {
            ok(sys::cuMemAddressReserve(&mut new_base, new_reserved, 0, 0, 0))?;
            ok(sys::cuMemMap(new_base, model.size, 0, model.handle, 0))?;
            ok(sys::cuMemSetAccess(new_base, model.size, &access, 1))?;
            ok(sys::cuStreamSynchronize(self.stream))?;
            // Old view: drop the mapping, then give the address range back.
            ok(sys::cuMemUnmap(model.base, model.size))?;
            ok(sys::cuMemAddressFree(model.base, model.size))?;
        }
        self.resident.insert(name.to_string(), ResidentModel { base: new_base, size: model.size, handle: model.handle });
        Ok(new_base)
    }
}
