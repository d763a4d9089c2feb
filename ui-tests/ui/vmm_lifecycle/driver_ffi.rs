// The VMM lifecycle through the raw driver API: cudarc's `driver::sys` and a crate's own
// `extern "C"` block. Reserve, create, map, set access, use; then unmap, release, free the
// range (seed 003, "Access Rights" and "Releasing the Memory").
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle, CUstream};

const SIZE: usize = 2 << 20;

mod ffi {
    pub type CUresult = i32;
    pub type CUdeviceptr = u64;
    pub type CUmemGenericAllocationHandle = u64;
    unsafe extern "C" {
        pub fn cuMemAddressReserve(ptr: *mut CUdeviceptr, size: usize, align: usize, addr: CUdeviceptr, flags: u64) -> CUresult;
        pub fn cuMemAddressFree(ptr: CUdeviceptr, size: usize) -> CUresult;
        pub fn cuMemMap(ptr: CUdeviceptr, size: usize, offset: usize, handle: CUmemGenericAllocationHandle, flags: u64) -> CUresult;
        pub fn cuMemUnmap(ptr: CUdeviceptr, size: usize) -> CUresult;
        pub fn cuMemRelease(handle: CUmemGenericAllocationHandle) -> CUresult;
        pub fn cuMemsetD8Async(dst: CUdeviceptr, value: u8, n: usize, stream: *mut std::ffi::c_void) -> CUresult;
    }
}

unsafe fn physical() -> CUmemGenericAllocationHandle {
    unsafe {
        let mut prop: sys::CUmemAllocationProp = std::mem::zeroed();
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        let mut handle: CUmemGenericAllocationHandle = 0;
        sys::cuMemCreate(&mut handle, SIZE, &prop, 0);
        handle
    }
}

unsafe fn grant(va: CUdeviceptr, size: usize) {
    unsafe {
        let mut access: sys::CUmemAccessDesc = std::mem::zeroed();
        access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        access.location.id = 0;
        access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        sys::cuMemSetAccess(va, size, &access, 1);
    }
}

fn fires_memset_before_set_access(stream: CUstream) {
    unsafe {
        let handle = physical();
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, SIZE, 0, 0, 0);
        sys::cuMemMap(va, SIZE, 0, handle, 0);
        sys::cuMemsetD32Async(va, 0, SIZE / 4, stream);
        //~^ vmm_lifecycle
        sys::cuStreamSynchronize(stream);
        sys::cuMemUnmap(va, SIZE);
        sys::cuMemRelease(handle);
        sys::cuMemAddressFree(va, SIZE);
    }
}

fn fires_copy_after_remap_without_new_access(host: &mut [u8], stream: CUstream) {
    // An unmap takes the access away; the new mapping starts with none.
    unsafe {
        let (old, new) = (physical(), physical());
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, SIZE, 0, 0, 0);
        sys::cuMemMap(va, SIZE, 0, old, 0);
        grant(va, SIZE);
        sys::cuMemsetD8Async(va, 1, SIZE, stream);
        sys::cuStreamSynchronize(stream);
        sys::cuMemUnmap(va, SIZE);
        sys::cuMemRelease(old);
        sys::cuMemMap(va, SIZE, 0, new, 0);
        sys::cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), va, host.len());
        //~^ vmm_lifecycle
    }
}

fn fires_address_free_before_unmap(stream: CUstream) {
    unsafe {
        let handle = physical();
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, SIZE, 0, 0, 0);
        sys::cuMemMap(va, SIZE, 0, handle, 0);
        grant(va, SIZE);
        sys::cuMemsetD8Async(va, 0, SIZE, stream);
        sys::cuStreamSynchronize(stream);
        sys::cuMemRelease(handle);
        sys::cuMemAddressFree(va, SIZE);
        //~^ vmm_lifecycle
        sys::cuMemUnmap(va, SIZE);
    }
}

fn fires_extern_block_memset_without_access() {
    unsafe {
        let handle = physical();
        let mut va: ffi::CUdeviceptr = 0;
        ffi::cuMemAddressReserve(&mut va, SIZE, 0, 0, 0);
        ffi::cuMemMap(va, SIZE, 0, handle, 0);
        ffi::cuMemsetD8Async(va, 0, SIZE, null_mut());
        //~^ vmm_lifecycle
    }
}

fn fires_extern_block_address_free_while_mapped() {
    unsafe {
        let handle = physical();
        let mut va: ffi::CUdeviceptr = 0;
        ffi::cuMemAddressReserve(&mut va, SIZE, 0, 0, 0);
        ffi::cuMemMap(va, SIZE, 0, handle, 0);
        ffi::cuMemRelease(handle);
        ffi::cuMemAddressFree(va, SIZE);
        //~^ vmm_lifecycle
    }
}

fn fires_access_granted_on_one_branch_only(stream: CUstream, peer_only: bool) {
    unsafe {
        let handle = physical();
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, SIZE, 0, 0, 0);
        sys::cuMemMap(va, SIZE, 0, handle, 0);
        if !peer_only {
            grant(va, SIZE);
        }
        sys::cuMemsetD8Async(va, 0, SIZE, stream);
        //~^ vmm_lifecycle
        sys::cuStreamSynchronize(stream);
    }
}

fn fires_unmap_while_the_memset_runs(stream: CUstream) {
    // cuMemUnmap does not wait for the device (vLLM #43020): missing_sync says so.
    unsafe {
        let handle = physical();
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, SIZE, 0, 0, 0);
        sys::cuMemMap(va, SIZE, 0, handle, 0);
        grant(va, SIZE);
        sys::cuMemsetD8Async(va, 0, SIZE, stream);
        sys::cuMemUnmap(va, SIZE);
        //~^ missing_sync
        sys::cuMemRelease(handle);
        sys::cuMemAddressFree(va, SIZE);
    }
}

fn ok_the_documented_order(stream: CUstream) {
    unsafe {
        let handle = physical();
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, SIZE, 0, 0, 0);
        sys::cuMemMap(va, SIZE, 0, handle, 0);
        grant(va, SIZE);
        sys::cuMemsetD8Async(va, 0, SIZE, stream);
        sys::cuStreamSynchronize(stream);
        sys::cuMemUnmap(va, SIZE);
        sys::cuMemRelease(handle);
        sys::cuMemAddressFree(va, SIZE);
    }
}

fn ok_release_the_handle_right_after_mapping(stream: CUstream) {
    // Legal: the memory lives until the last mapping goes.
    unsafe {
        let handle = physical();
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, SIZE, 0, 0, 0);
        sys::cuMemMap(va, SIZE, 0, handle, 0);
        sys::cuMemRelease(handle);
        grant(va, SIZE);
        sys::cuMemsetD8Async(va, 0, SIZE, stream);
        sys::cuStreamSynchronize(stream);
        sys::cuMemUnmap(va, SIZE);
        sys::cuMemAddressFree(va, SIZE);
    }
}

fn ok_access_granted_again_after_remap(host: &mut [u8], stream: CUstream) {
    unsafe {
        let (old, new) = (physical(), physical());
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, SIZE, 0, 0, 0);
        sys::cuMemMap(va, SIZE, 0, old, 0);
        grant(va, SIZE);
        sys::cuMemsetD8Async(va, 1, SIZE, stream);
        sys::cuStreamSynchronize(stream);
        sys::cuMemUnmap(va, SIZE);
        sys::cuMemRelease(old);
        sys::cuMemMap(va, SIZE, 0, new, 0);
        grant(va, SIZE);
        sys::cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), va, host.len());
    }
}

fn ok_extern_block_unmap_then_free() {
    unsafe {
        let handle = physical();
        let mut va: ffi::CUdeviceptr = 0;
        ffi::cuMemAddressReserve(&mut va, SIZE, 0, 0, 0);
        ffi::cuMemMap(va, SIZE, 0, handle, 0);
        ffi::cuMemUnmap(va, SIZE);
        ffi::cuMemRelease(handle);
        ffi::cuMemAddressFree(va, SIZE);
    }
}

fn ok_address_free_after_a_failed_map(stream: CUstream) {
    // The map failed: nothing is mapped; freeing the range is the rollback.
    unsafe {
        let handle = physical();
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, SIZE, 0, 0, 0);
        if sys::cuMemMap(va, SIZE, 0, handle, 0) != sys::CUresult::CUDA_SUCCESS {
            sys::cuMemRelease(handle);
            sys::cuMemAddressFree(va, SIZE);
            return;
        }
        grant(va, SIZE);
        sys::cuMemsetD8Async(va, 0, SIZE, stream);
        sys::cuStreamSynchronize(stream);
    }
}

fn ok_mapping_given_by_the_caller(va: CUdeviceptr, stream: CUstream) {
    // Where it was mapped, and whether access was set, is the caller's business.
    unsafe {
        sys::cuMemsetD8Async(va, 0, SIZE, stream);
        sys::cuStreamSynchronize(stream);
    }
}

fn ok_access_for_every_device_through_a_vec(devices: i32, stream: CUstream) {
    unsafe {
        let handle = physical();
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, SIZE, 0, 0, 0);
        sys::cuMemMap(va, SIZE, 0, handle, 0);
        let descs: Vec<sys::CUmemAccessDesc> = (0..devices)
            .map(|device| {
                let mut access: sys::CUmemAccessDesc = std::mem::zeroed();
                access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
                access.location.id = device;
                access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
                access
            })
            .collect();
        sys::cuMemSetAccess(va, SIZE, descs.as_ptr(), descs.len());
        sys::cuMemsetD8Async(va, 0, SIZE, stream);
        sys::cuStreamSynchronize(stream);
    }
}

fn fires_remap_without_unmap(stream: CUstream) {
    // Seed 003: no new mapping on a range that is already mapped.
    unsafe {
        let (old, new) = (physical(), physical());
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, SIZE, 0, 0, 0);
        sys::cuMemMap(va, SIZE, 0, old, 0);
        grant(va, SIZE);
        sys::cuMemsetD8Async(va, 1, SIZE, stream);
        sys::cuStreamSynchronize(stream);
        sys::cuMemMap(va, SIZE, 0, new, 0);
        //~^ vmm_lifecycle
    }
}

fn ok_remap_in_a_loop_after_unmap(steps: usize, stream: CUstream) {
    unsafe {
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, SIZE, 0, 0, 0);
        for _ in 0..steps {
            let handle = physical();
            sys::cuMemMap(va, SIZE, 0, handle, 0);
            sys::cuMemRelease(handle);
            grant(va, SIZE);
            sys::cuMemsetD8Async(va, 1, SIZE, stream);
            sys::cuStreamSynchronize(stream);
            sys::cuMemUnmap(va, SIZE);
        }
        sys::cuMemAddressFree(va, SIZE);
    }
}

fn main() {}
