// A size the program sets to 0 and then has a call write (`cuMemGetAllocationGranularity(&mut
// bytes, ..)`) is what the call wrote, not 0: `base + bytes` is the second half of the
// reservation, not `base` again.
use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};

unsafe fn prop() -> sys::CUmemAllocationProp {
    unsafe {
        let mut prop: sys::CUmemAllocationProp = std::mem::zeroed();
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop
    }
}

fn ok_mirror_at_the_granularity_a_call_wrote() -> (CUdeviceptr, usize) {
    let prop = unsafe { prop() };
    let mut bytes = 0usize;
    let mut base: CUdeviceptr = 0;
    let mut handle: CUmemGenericAllocationHandle = 0;
    unsafe {
        sys::cuMemGetAllocationGranularity(
            &mut bytes,
            &prop,
            sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM,
        );
        sys::cuMemAddressReserve(&mut base, 2 * bytes, 0, 0, 0);
        sys::cuMemCreate(&mut handle, bytes, &prop, 0);
        sys::cuMemMap(base, bytes, 0, handle, 0);
        sys::cuMemMap(base + bytes as u64, bytes, 0, handle, 0);
    }
    (base, bytes)
}

fn fires_same_half_mapped_twice() -> (CUdeviceptr, usize) {
    let prop = unsafe { prop() };
    let mut bytes = 0usize;
    let mut base: CUdeviceptr = 0;
    let mut handle: CUmemGenericAllocationHandle = 0;
    unsafe {
        sys::cuMemGetAllocationGranularity(
            &mut bytes,
            &prop,
            sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM,
        );
        sys::cuMemAddressReserve(&mut base, 2 * bytes, 0, 0, 0);
        sys::cuMemCreate(&mut handle, bytes, &prop, 0);
        sys::cuMemMap(base, bytes, 0, handle, 0);
        sys::cuMemMap(base, bytes, 0, handle, 0); //~ vmm_lifecycle
    }
    (base, bytes)
}

fn main() {}
