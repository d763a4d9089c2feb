//! case: a VMM range modelled as an enum state machine (Reserved / Mapped) moved with mem::replace; unmapping happens in the Mapped arm before the range is freed
//! expect: none
use std::mem;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, DriverError};

enum Range {
    Reserved { va: CUdeviceptr, size: usize },
    Mapped { va: CUdeviceptr, size: usize, handle: sys::CUmemGenericAllocationHandle },
    Gone,
}

pub struct Segment {
    state: Range,
    device: i32,
}

impl Segment {
    pub fn reserve(device: i32, size: usize) -> Result<Segment, DriverError> {
        let mut va = 0;
        unsafe { sys::cuMemAddressReserve(&mut va, size, 0, 0, 0) }.result()?;
        Ok(Segment { state: Range::Reserved { va, size }, device })
    }

    pub fn commit(&mut self) -> Result<CUdeviceptr, DriverError> {
        let Range::Reserved { va, size } = mem::replace(&mut self.state, Range::Gone) else {
            panic!("commit on a segment that is not reserved");
        };
        let mut prop: sys::CUmemAllocationProp = unsafe { mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = self.device;
        let mut handle = 0;
        let desc = sys::CUmemAccessDesc { location: prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        unsafe {
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemMap(va, size, 0, handle, 0).result()?;
            sys::cuMemSetAccess(va, size, &desc, 1).result()?;
        }
        self.state = Range::Mapped { va, size, handle };
        Ok(va)
    }

    /// Gives the physical memory back but keeps the addresses.
    pub fn decommit(&mut self) -> Result<(), DriverError> {
        if let Range::Mapped { va, size, handle } = mem::replace(&mut self.state, Range::Gone) {
            unsafe {
                sys::cuCtxSynchronize().result()?;
                sys::cuMemUnmap(va, size).result()?;
                sys::cuMemRelease(handle).result()?;
            }
            self.state = Range::Reserved { va, size };
        }
        Ok(())
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        match mem::replace(&mut self.state, Range::Gone) {
            Range::Mapped { va, size, handle } => unsafe {
                let _ = sys::cuCtxSynchronize();
                let _ = sys::cuMemUnmap(va, size);
                let _ = sys::cuMemRelease(handle);
                let _ = sys::cuMemAddressFree(va, size);
            },
            Range::Reserved { va, size } => unsafe {
                let _ = sys::cuMemAddressFree(va, size);
            },
            Range::Gone => {}
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let mut seg = Segment::reserve(ctx.cu_device(), 8 << 20)?;
    let va = seg.commit()?;
    unsafe { sys::cuMemsetD8_v2(va, 0xff, 8 << 20) }.result()?;
    seg.decommit()?;
    seg.commit()?;
    Ok(())
}
