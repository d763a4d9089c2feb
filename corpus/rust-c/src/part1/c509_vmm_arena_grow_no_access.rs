//! case: a VMM-backed growable KV-cache arena (driver API through cudarc's `sys`): `new` grants access to its first chunk, but `grow` maps a fresh chunk and zero-fills it with a memset before any `cuMemSetAccess` on the new mapping
//! expect: vmm_lifecycle=1
use cudarc::driver::{result::DriverError, sys};

fn ok(r: sys::CUresult) -> Result<(), DriverError> {
    r.result()
}

fn device_prop(device: i32) -> sys::CUmemAllocationProp {
    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.requestedHandleTypes = sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE;
    prop.location = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device };
    prop
}

fn rw_access(device: i32) -> sys::CUmemAccessDesc {
    sys::CUmemAccessDesc {
        location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device },
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    }
}

pub struct KvArena {
    base: sys::CUdeviceptr,
    reserved: usize,
    committed: usize,
    chunk: usize,
    handles: Vec<sys::CUmemGenericAllocationHandle>,
    device: i32,
    stream: sys::CUstream,
}

impl KvArena {
    pub fn new(device: i32, max_bytes: usize, stream: sys::CUstream) -> Result<Self, DriverError> {
        let prop = device_prop(device);
        let mut gran = 0usize;
        unsafe {
            ok(sys::cuMemGetAllocationGranularity(
                &mut gran,
                &prop,
                sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED,
            ))?;
        }
        let chunk = (32usize << 20).next_multiple_of(gran);
        let reserved = max_bytes.next_multiple_of(chunk);
        let mut base = 0;
        unsafe { ok(sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0))? };
        let mut arena = Self { base, reserved, committed: 0, chunk, handles: Vec::new(), device, stream };
        // First chunk: map and grant access.
        let mut handle = 0;
        unsafe {
            ok(sys::cuMemCreate(&mut handle, chunk, &prop, 0))?;
            ok(sys::cuMemMap(base, chunk, 0, handle, 0))?;
            ok(sys::cuMemSetAccess(base, chunk, &rw_access(device), 1))?;
        }
        arena.handles.push(handle);
        arena.committed = chunk;
        Ok(arena)
    }

    /// Commits one more chunk at the end of the used part of the reservation.
    pub fn grow(&mut self) -> Result<sys::CUdeviceptr, DriverError> {
        if self.committed + self.chunk > self.reserved {
            return Err(DriverError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY));
        }
        let prop = device_prop(self.device);
        let at = self.base + self.committed as u64;
        let mut handle = 0;
        unsafe {
            ok(sys::cuMemCreate(&mut handle, self.chunk, &prop, 0))?;
            ok(sys::cuMemMap(at, self.chunk, 0, handle, 0))?;
            // KV pages must start zeroed: attention masks read the padding.
            ok(sys::cuMemsetD32Async(at, 0, self.chunk / 4, self.stream))?; // EXPECT: vmm_lifecycle
        }
        self.handles.push(handle);
        self.committed += self.chunk;
        Ok(at)
    }

    pub fn committed_bytes(&self) -> usize {
        self.committed
    }
}
