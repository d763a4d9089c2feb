// The lifecycle as applications write it: a buffer type that maps in `new` and tears down in
// `Drop`, a growable pool that maps a chunk per step, the mirrored ring buffer, rollback on a
// failed map.
use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle, CUstream};

const CHUNK: usize = 2 << 20;

unsafe fn physical() -> CUmemGenericAllocationHandle {
    unsafe {
        let mut prop: sys::CUmemAllocationProp = std::mem::zeroed();
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        let mut handle: CUmemGenericAllocationHandle = 0;
        sys::cuMemCreate(&mut handle, CHUNK, &prop, 0);
        handle
    }
}

unsafe fn grant(va: CUdeviceptr, size: usize) {
    unsafe {
        let mut access: sys::CUmemAccessDesc = std::mem::zeroed();
        access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        sys::cuMemSetAccess(va, size, &access, 1);
    }
}

/// Maps in `new`, but forgets to grant access (the bug of a first draft).
struct Staging {
    va: CUdeviceptr,
    handle: CUmemGenericAllocationHandle,
}

impl Staging {
    fn new() -> Staging {
        unsafe {
            let handle = physical();
            let mut va: CUdeviceptr = 0;
            sys::cuMemAddressReserve(&mut va, CHUNK, 0, 0, 0);
            sys::cuMemMap(va, CHUNK, 0, handle, 0);
            Staging { va, handle }
        }
    }

    // Analysed alone, with what `new` made: another method may grant access (no finding);
    // where `new` and this run in one function, nothing did.
    fn clear(&self, stream: CUstream) {
        unsafe { sys::cuMemsetD8Async(self.va, 0, CHUNK, stream) };
    }
}

/// The documented order: map and grant in `new`; unmap, release, free in `Drop`.
struct VmmBuffer {
    va: CUdeviceptr,
    handle: CUmemGenericAllocationHandle,
}

impl VmmBuffer {
    fn new() -> VmmBuffer {
        unsafe {
            let handle = physical();
            let mut va: CUdeviceptr = 0;
            sys::cuMemAddressReserve(&mut va, CHUNK, 0, 0, 0);
            sys::cuMemMap(va, CHUNK, 0, handle, 0);
            grant(va, CHUNK);
            VmmBuffer { va, handle }
        }
    }

    fn clear(&self, stream: CUstream) {
        unsafe { sys::cuMemsetD8Async(self.va, 0, CHUNK, stream) };
    }
}

impl Drop for VmmBuffer {
    fn drop(&mut self) {
        unsafe {
            sys::cuMemUnmap(self.va, CHUNK);
            sys::cuMemRelease(self.handle);
            sys::cuMemAddressFree(self.va, CHUNK);
        }
    }
}

/// Tears down in the inverted order (Mooncake #2380): the range first.
struct InvertedTeardown {
    va: CUdeviceptr,
    handle: CUmemGenericAllocationHandle,
}

impl InvertedTeardown {
    fn new() -> InvertedTeardown {
        let b = VmmBuffer::new();
        let me = InvertedTeardown { va: b.va, handle: b.handle };
        std::mem::forget(b);
        me
    }

    // Analysed with what `new` made: the range is mapped when it is freed.
    fn release(self) {
        unsafe {
            sys::cuMemAddressFree(self.va, CHUNK);
            //~^ vmm_lifecycle
            sys::cuMemUnmap(self.va, CHUNK);
            sys::cuMemRelease(self.handle);
        }
    }
}

fn fires_method_clears_a_buffer_mapped_without_access(stream: CUstream) {
    let staging = Staging::new();
    staging.clear(stream);
    //~^ vmm_lifecycle
    unsafe { sys::cuStreamSynchronize(stream) };
    let _ = staging.handle;
}

fn caller_of_a_teardown_that_frees_the_range_first(stream: CUstream) {
    let b = InvertedTeardown::new();
    unsafe {
        sys::cuMemsetD8Async(b.va, 0, CHUNK, stream);
        sys::cuStreamSynchronize(stream);
    }
    // (reported in `release`, where the free is)
    b.release();
}

fn fires_chunk_mapped_in_a_growth_step_without_access(base: CUdeviceptr, stream: CUstream) {
    // One growth step of a pool: a new chunk at the end of the reserved range.
    unsafe {
        let mut range: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut range, 4 * CHUNK, 0, base, 0);
        sys::cuMemMap(range, CHUNK, 0, physical(), 0);
        grant(range, CHUNK);
        sys::cuMemMap(range + CHUNK as u64, CHUNK, 0, physical(), 0);
        sys::cuMemsetD8Async(range + CHUNK as u64, 0, CHUNK, stream);
        //~^ vmm_lifecycle
        sys::cuStreamSynchronize(stream);
    }
}

fn fires_ring_half_left_mapped_at_free(stream: CUstream) {
    unsafe {
        let h = physical();
        let mut base: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut base, 2 * CHUNK, 0, 0, 0);
        sys::cuMemMap(base, CHUNK, 0, h, 0);
        sys::cuMemMap(base + CHUNK as u64, CHUNK, 0, h, 0);
        grant(base, 2 * CHUNK);
        sys::cuMemsetD8Async(base, 0, CHUNK, stream);
        sys::cuStreamSynchronize(stream);
        sys::cuMemUnmap(base + CHUNK as u64, CHUNK);
        sys::cuMemRelease(h);
        sys::cuMemAddressFree(base, 2 * CHUNK);
        //~^ vmm_lifecycle
    }
}

fn fires_free_after_checked_map_that_succeeded() -> i32 {
    unsafe {
        let h = physical();
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, CHUNK, 0, 0, 0);
        if sys::cuMemMap(va, CHUNK, 0, h, 0) != sys::CUresult::CUDA_SUCCESS {
            sys::cuMemAddressFree(va, CHUNK);
            return -1;
        }
        sys::cuMemRelease(h);
        sys::cuMemAddressFree(va, CHUNK);
        //~^ vmm_lifecycle
        0
    }
}

fn ok_buffer_type_with_the_documented_drop(stream: CUstream) {
    let b = VmmBuffer::new();
    b.clear(stream);
    unsafe { sys::cuStreamSynchronize(stream) };
    drop(b);
}

fn ok_pool_grown_and_freed_in_loops(chunks: usize, stream: CUstream) {
    unsafe {
        let mut base: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut base, chunks * CHUNK, 0, 0, 0);
        let mut handles = Vec::new();
        for i in 0..chunks {
            let h = physical();
            sys::cuMemMap(base + (i * CHUNK) as u64, CHUNK, 0, h, 0);
            handles.push(h);
        }
        grant(base, chunks * CHUNK);
        sys::cuMemsetD8Async(base, 0, chunks * CHUNK, stream);
        sys::cuStreamSynchronize(stream);
        for (i, h) in handles.into_iter().enumerate() {
            sys::cuMemUnmap(base + (i * CHUNK) as u64, CHUNK);
            sys::cuMemRelease(h);
        }
        sys::cuMemAddressFree(base, chunks * CHUNK);
    }
}

fn ok_ring_unmapped_by_one_call_over_both_halves(stream: CUstream) {
    unsafe {
        let h = physical();
        let mut base: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut base, 2 * CHUNK, 0, 0, 0);
        sys::cuMemMap(base, CHUNK, 0, h, 0);
        sys::cuMemMap(base + CHUNK as u64, CHUNK, 0, h, 0);
        sys::cuMemRelease(h);
        grant(base, 2 * CHUNK);
        sys::cuMemsetD8Async(base + CHUNK as u64, 0, CHUNK, stream);
        sys::cuStreamSynchronize(stream);
        sys::cuMemUnmap(base, 2 * CHUNK);
        sys::cuMemAddressFree(base, 2 * CHUNK);
    }
}

fn ok_rollback_of_a_failed_map_through_a_status_variable() -> i32 {
    unsafe {
        let h = physical();
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, CHUNK, 0, 0, 0);
        let status = sys::cuMemMap(va, CHUNK, 0, h, 0);
        if status != sys::CUresult::CUDA_SUCCESS {
            sys::cuMemRelease(h);
            sys::cuMemAddressFree(va, CHUNK);
            return -1;
        }
        grant(va, CHUNK);
        0
    }
}

fn ok_access_granted_in_the_growth_loop(chunks: usize, stream: CUstream) {
    unsafe {
        let mut base: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut base, chunks * CHUNK, 0, 0, 0);
        for i in 0..chunks {
            let at = base + (i * CHUNK) as u64;
            sys::cuMemMap(at, CHUNK, 0, physical(), 0);
            grant(at, CHUNK);
        }
        sys::cuMemsetD8Async(base, 0, chunks * CHUNK, stream);
        sys::cuStreamSynchronize(stream);
    }
}

/// Two-phase set-up: `new` maps, `enable` grants access, `zero` uses the mapping. Analysed
/// alone, `zero` cannot know whether `enable` ran: no finding.
struct TwoPhase {
    va: CUdeviceptr,
    handle: CUmemGenericAllocationHandle,
}

impl TwoPhase {
    fn new() -> TwoPhase {
        unsafe {
            let handle = physical();
            let mut va: CUdeviceptr = 0;
            sys::cuMemAddressReserve(&mut va, CHUNK, 0, 0, 0);
            sys::cuMemMap(va, CHUNK, 0, handle, 0);
            TwoPhase { va, handle }
        }
    }

    fn enable(&self) {
        unsafe { grant(self.va, CHUNK) };
    }

    fn ok_zero_after_another_method_may_have_granted_access(&self, stream: CUstream) {
        unsafe { sys::cuMemsetD8Async(self.va, 0, CHUNK, stream) };
    }
}

fn main() {}
