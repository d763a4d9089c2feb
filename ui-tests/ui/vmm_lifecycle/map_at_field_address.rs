// A growable arena maps a new chunk at `base + committed`, an address of a reservation made in
// another method: whatever the reservation, what `cuMemMap` maps there has no access until
// `cuMemSetAccess` grants it (seed 003, "Access Rights").
use cudarc::driver::sys;

struct Arena {
    base: sys::CUdeviceptr,
    committed: usize,
    chunk: usize,
    device: i32,
    stream: sys::CUstream,
}

fn access(device: i32) -> sys::CUmemAccessDesc {
    sys::CUmemAccessDesc {
        location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device },
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    }
}

impl Arena {
    unsafe fn fires_grow_zeroes_the_new_chunk_before_access(&mut self, handle: sys::CUmemGenericAllocationHandle) -> sys::CUdeviceptr {
        let at = self.base + self.committed as u64;
        unsafe {
            sys::cuMemMap(at, self.chunk, 0, handle, 0);
            sys::cuMemsetD32Async(at, 0, self.chunk / 4, self.stream); //~ vmm_lifecycle
        }
        self.committed += self.chunk;
        at
    }

    unsafe fn ok_grow_grants_access_then_zeroes(&mut self, handle: sys::CUmemGenericAllocationHandle) -> sys::CUdeviceptr {
        let at = self.base + self.committed as u64;
        unsafe {
            sys::cuMemMap(at, self.chunk, 0, handle, 0);
            sys::cuMemSetAccess(at, self.chunk, &access(self.device), 1);
            sys::cuMemsetD32Async(at, 0, self.chunk / 4, self.stream);
        }
        self.committed += self.chunk;
        at
    }

    unsafe fn ok_zeroes_a_chunk_mapped_before(&mut self, at: sys::CUdeviceptr) {
        // Mapped (and granted access) by whoever handed out `at`: nothing says otherwise.
        unsafe { sys::cuMemsetD32Async(at, 0, self.chunk / 4, self.stream) };
    }
}

fn main() {}
