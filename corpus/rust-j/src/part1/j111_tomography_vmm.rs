//! case: travel-time tomography allocates its slowness volume through the VMM driver API (cudarc `sys`) and clears it with cuMemsetD32Async right after cuMemMap, before cuMemSetAccess has granted the device access to the new mapping; teardown is in the right order
//! expect: vmm_lifecycle=1

use std::mem::MaybeUninit;
use std::ptr::null_mut;

use cudarc::driver::sys;

#[derive(Debug)]
pub struct VmmError(pub sys::CUresult, pub &'static str);

fn ck(r: sys::CUresult, what: &'static str) -> Result<(), VmmError> {
    if r == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(VmmError(r, what)) }
}

fn pinned_prop(device: i32) -> sys::CUmemAllocationProp {
    let mut prop: sys::CUmemAllocationProp = unsafe { MaybeUninit::zeroed().assume_init() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop
}

/// A slowness model of `nx*ny*nz` cells backed by one physical allocation.
pub struct SlownessVolume {
    pub va: sys::CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
    stream: sys::CUstream,
    pub cells: usize,
}

impl SlownessVolume {
    pub fn create(device: i32, stream: sys::CUstream, nx: usize, ny: usize, nz: usize, background: f32) -> Result<Self, VmmError> {
        let cells = nx * ny * nz;
        let prop = pinned_prop(device);
        let mut gran = 0usize;
        unsafe {
            ck(
                sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM),
                "granularity",
            )?;
        }
        let size = (cells * 4).div_ceil(gran) * gran;
        let mut va: sys::CUdeviceptr = 0;
        let mut handle: sys::CUmemGenericAllocationHandle = 0;
        unsafe {
            ck(sys::cuMemAddressReserve(&mut va, size, 0, 0, 0), "reserve")?;
            ck(sys::cuMemCreate(&mut handle, size, &prop, 0), "create")?;
            ck(sys::cuMemMap(va, size, 0, handle, 0), "map")?;
            // Fill with the background slowness before the first inversion sweep.
            ck(sys::cuMemsetD32Async(va, background.to_bits(), cells, stream), "memset")?; // EXPECT: vmm_lifecycle
            let access = sys::CUmemAccessDesc {
                location: prop.location,
                flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
            };
            ck(sys::cuMemSetAccess(va, size, &access, 1), "set access")?;
        }
        Ok(Self { va, size, handle, stream, cells })
    }

    pub fn backproject(&self, kernel: sys::CUfunction, rays: sys::CUdeviceptr, n_rays: i32) -> Result<(), VmmError> {
        let mut va = self.va;
        let mut rays = rays;
        let mut n = n_rays;
        let mut params = [
            (&mut va as *mut sys::CUdeviceptr).cast::<std::ffi::c_void>(),
            (&mut rays as *mut sys::CUdeviceptr).cast(),
            (&mut n as *mut i32).cast(),
        ];
        unsafe {
            ck(
                sys::cuLaunchKernel(kernel, (n_rays as u32).div_ceil(128), 1, 1, 128, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut()),
                "backproject",
            )
        }
    }
}

impl Drop for SlownessVolume {
    fn drop(&mut self) {
        unsafe {
            sys::cuStreamSynchronize(self.stream);
            sys::cuMemUnmap(self.va, self.size);
            sys::cuMemRelease(self.handle);
            sys::cuMemAddressFree(self.va, self.size);
        }
    }
}
