//! case: the growable arena done right: each new chunk is mapped then given access before the memset, and `Drop` synchronizes, unmaps every chunk, releases the handles and only then frees the reservation
//! expect: none
use cudarc::driver::{result::DriverError, sys};

fn ok(r: sys::CUresult) -> Result<(), DriverError> {
    r.result()
}

fn location(device: i32) -> sys::CUmemLocation {
    sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device }
}

pub struct GrowableArena {
    base: sys::CUdeviceptr,
    reserved: usize,
    chunk: usize,
    chunks: Vec<(sys::CUdeviceptr, sys::CUmemGenericAllocationHandle)>,
    device: i32,
    stream: sys::CUstream,
}

impl GrowableArena {
    pub fn reserve(device: i32, max_bytes: usize, chunk: usize, stream: sys::CUstream) -> Result<Self, DriverError> {
        let reserved = max_bytes.next_multiple_of(chunk);
        let mut base = 0;
        unsafe { ok(sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0))? };
        Ok(Self { base, reserved, chunk, chunks: Vec::new(), device, stream })
    }

    pub fn grow(&mut self) -> Result<sys::CUdeviceptr, DriverError> {
        let offset = self.chunks.len() * self.chunk;
        if offset + self.chunk > self.reserved {
            return Err(DriverError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY));
        }
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location = location(self.device);
        let access = sys::CUmemAccessDesc {
            location: location(self.device),
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        let at = self.base + offset as u64;
        let mut handle = 0;
        unsafe {
            ok(sys::cuMemCreate(&mut handle, self.chunk, &prop, 0))?;
            ok(sys::cuMemMap(at, self.chunk, 0, handle, 0))?;
            ok(sys::cuMemSetAccess(at, self.chunk, &access, 1))?;
            ok(sys::cuMemsetD32Async(at, 0, self.chunk / 4, self.stream))?;
        }
        self.chunks.push((at, handle));
        Ok(at)
    }
}

impl Drop for GrowableArena {
    fn drop(&mut self) {
        unsafe {
            // Work in flight may still use the chunks: cuMemUnmap does not wait.
            let _ = sys::cuStreamSynchronize(self.stream);
            for (at, handle) in self.chunks.drain(..).rev() {
                let _ = sys::cuMemUnmap(at, self.chunk);
                let _ = sys::cuMemRelease(handle);
            }
            let _ = sys::cuMemAddressFree(self.base, self.reserved);
        }
    }
}
