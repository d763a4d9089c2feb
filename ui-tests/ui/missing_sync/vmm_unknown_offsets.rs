//@no-rustfix
// Two places at offsets of a VMM reservation the analysis does not know (`base + head`, `base +
// size` with `size` not a constant) are no evidence of the same memory: they may be apart, or
// two mappings of one allocation (`unfenced_vmm_alias`'s). At the same known place, they are.
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};

unsafe fn stream() -> CUstream {
    let mut s = null_mut();
    unsafe { sys::cuStreamCreate(&mut s, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) };
    s
}

/// A mirrored ring: one allocation mapped at `base` and at `base + size`.
unsafe fn mirrored(size: usize) -> CUdeviceptr {
    unsafe {
        let mut prop: sys::CUmemAllocationProp = std::mem::zeroed();
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        let (mut base, mut handle) = (0, 0);
        sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0);
        sys::cuMemCreate(&mut handle, size, &prop, 0);
        sys::cuMemMap(base, size, 0, handle, 0);
        sys::cuMemMap(base + size as u64, size, 0, handle, 0);
        let desc = sys::CUmemAccessDesc {
            location: prop.location,
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        sys::cuMemSetAccess(base, 2 * size, &desc, 1);
        base
    }
}

fn ok_writer_and_reader_at_offsets_not_known(size: usize, head: usize, pkts: *const u8, host: *mut u8) {
    unsafe {
        let (rx, parse) = (stream(), stream());
        let base = mirrored(size);
        sys::cuMemcpyHtoDAsync_v2(base + head as u64, pkts.cast(), 1500, rx);
        sys::cuMemcpyDtoHAsync_v2(host.cast(), base + size as u64 + head as u64, 1500, parse);
        sys::cuStreamSynchronize(parse);
        sys::cuStreamSynchronize(rx);
    }
}

fn fires_writer_and_reader_at_the_same_place(size: usize, pkts: *const u8, host: *mut u8) {
    unsafe {
        let (rx, parse) = (stream(), stream());
        let base = mirrored(size);
        sys::cuMemcpyHtoDAsync_v2(base, pkts.cast(), 1500, rx);
        sys::cuMemcpyDtoHAsync_v2(host.cast(), base, 1500, parse); //~ missing_sync
        sys::cuStreamSynchronize(parse);
        sys::cuStreamSynchronize(rx);
    }
}

fn main() {}
