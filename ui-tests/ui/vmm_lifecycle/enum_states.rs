// A VMM range as an enum state machine (reserved, mapped), moved with `mem::replace`: the arms
// a `match` takes are those of the variant the value is, so the arm for another state is not
// a path (the drop of a mapped segment unmaps first; the reserved arm is not taken).
use std::mem;

use cudarc::driver::sys::{self, CUdeviceptr};

enum Range {
    Reserved { va: CUdeviceptr, size: usize },
    Mapped { va: CUdeviceptr, size: usize, handle: sys::CUmemGenericAllocationHandle },
    Gone,
}

struct Segment {
    state: Range,
}

unsafe fn reserve(size: usize) -> CUdeviceptr {
    let mut va = 0;
    unsafe { sys::cuMemAddressReserve(&mut va, size, 0, 0, 0) };
    va
}

unsafe fn map(va: CUdeviceptr, size: usize) -> sys::CUmemGenericAllocationHandle {
    let mut prop: sys::CUmemAllocationProp = unsafe { mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    let mut handle = 0;
    unsafe {
        sys::cuMemCreate(&mut handle, size, &prop, 0);
        sys::cuMemMap(va, size, 0, handle, 0);
    }
    handle
}

impl Segment {
    fn release(&mut self) {
        match mem::replace(&mut self.state, Range::Gone) {
            Range::Mapped { va, size, handle } => unsafe {
                sys::cuMemUnmap(va, size);
                sys::cuMemRelease(handle);
                sys::cuMemAddressFree(va, size);
            },
            Range::Reserved { va, size } => unsafe {
                sys::cuMemAddressFree(va, size);
            },
            Range::Gone => {}
        }
    }

    fn release_forgetting_the_unmap(&mut self) {
        match mem::replace(&mut self.state, Range::Gone) {
            Range::Mapped { va, size, .. } | Range::Reserved { va, size } => unsafe {
                sys::cuMemAddressFree(va, size);
            },
            Range::Gone => {}
        }
    }
}

fn ok_mapped_segment_released_through_its_own_arm() {
    unsafe {
        let size = 2 << 20;
        let va = reserve(size);
        let handle = map(va, size);
        let mut seg = Segment { state: Range::Mapped { va, size, handle } };
        seg.release();
    }
}

fn ok_reserved_segment_freed_at_once() {
    unsafe {
        let size = 2 << 20;
        let va = reserve(size);
        let mut seg = Segment { state: Range::Reserved { va, size } };
        seg.release();
    }
}

fn fires_mapped_segment_freed_through_a_shared_arm() {
    unsafe {
        let size = 2 << 20;
        let va = reserve(size);
        let handle = map(va, size);
        let mut seg = Segment { state: Range::Mapped { va, size, handle } };
        seg.release_forgetting_the_unmap();
        //~^ vmm_lifecycle
    }
}

fn main() {}
