//! case: growable device arena for a log-analytics engine reserves a large VA range up front and maps physical chunks on demand (cudarc sys layer); `grow` maps the new chunk and zeroes it with `cuMemsetD32Async` but never calls `cuMemSetAccess` for it
//! expect: vmm_lifecycle=1

use cudarc::driver::sys;

#[derive(Debug)]
pub enum ArenaError {
    Exhausted { requested: usize, reserved: usize },
    Driver(&'static str, sys::CUresult),
}

fn ck(what: &'static str, r: sys::CUresult) -> Result<(), ArenaError> {
    if r == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(ArenaError::Driver(what, r)) }
}

pub struct GrowableArena {
    ordinal: i32,
    base: sys::CUdeviceptr,
    reserved: usize,
    mapped: usize,
    chunk: usize,
    handles: Vec<(sys::CUdeviceptr, sys::CUmemGenericAllocationHandle)>,
    cursor: usize,
    stream: sys::CUstream,
}

impl GrowableArena {
    fn prop(&self) -> sys::CUmemAllocationProp {
        sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: self.ordinal },
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        }
    }

    pub fn reserve(ordinal: i32, reserved: usize, chunk: usize, stream: sys::CUstream) -> Result<Self, ArenaError> {
        let mut base = 0;
        ck("cuMemAddressReserve", unsafe { sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0) })?;
        Ok(Self { ordinal, base, reserved, mapped: 0, chunk, handles: Vec::new(), cursor: 0, stream })
    }

    fn grow(&mut self) -> Result<(), ArenaError> {
        if self.mapped + self.chunk > self.reserved {
            return Err(ArenaError::Exhausted { requested: self.mapped + self.chunk, reserved: self.reserved });
        }
        let prop = self.prop();
        let mut handle = 0;
        ck("cuMemCreate", unsafe { sys::cuMemCreate(&mut handle, self.chunk, &prop, 0) })?;
        let at = self.base + self.mapped as u64;
        ck("cuMemMap", unsafe { sys::cuMemMap(at, self.chunk, 0, handle, 0) })?;
        // fresh chunks start zeroed so partially filled pages scan as empty
        ck("cuMemsetD32Async", unsafe { sys::cuMemsetD32Async(at, 0, self.chunk / 4, self.stream) })?; // EXPECT: vmm_lifecycle
        self.handles.push((at, handle));
        self.mapped += self.chunk;
        Ok(())
    }

    pub fn alloc(&mut self, bytes: usize) -> Result<sys::CUdeviceptr, ArenaError> {
        let bytes = (bytes + 255) & !255;
        while self.cursor + bytes > self.mapped {
            self.grow()?;
        }
        let p = self.base + self.cursor as u64;
        self.cursor += bytes;
        Ok(p)
    }

    pub fn reset(&mut self) {
        self.cursor = 0;
    }
}

impl Drop for GrowableArena {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            for (at, handle) in self.handles.drain(..) {
                let _ = sys::cuMemUnmap(at, self.chunk);
                let _ = sys::cuMemRelease(handle);
            }
            let _ = sys::cuMemAddressFree(self.base, self.reserved);
        }
    }
}
