use super::ffi::{self, check};
use cudarc::driver::sys;

struct Chunk {
    handle: ffi::CUmemGenericAllocationHandle,
    offset: usize,
}

/// A device array that grows without copying: the physical chunks stay, only the address
/// range around them is replaced.
pub struct DeviceGrowVec {
    device: ffi::CUdevice,
    stream: ffi::CUstream,
    va: ffi::CUdeviceptr,
    reserved: usize,
    chunk_bytes: usize,
    chunks: Vec<Chunk>,
}

fn prop(device: ffi::CUdevice) -> ffi::CUmemAllocationProp {
    let mut p: ffi::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    p.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = device;
    p
}

fn access(device: ffi::CUdevice) -> ffi::CUmemAccessDesc {
    let mut a: ffi::CUmemAccessDesc = unsafe { std::mem::zeroed() };
    a.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    a.location.id = device;
    a.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    a
}

impl DeviceGrowVec {
    pub fn with_chunk(device: ffi::CUdevice, stream: ffi::CUstream, min_chunk: usize) -> Result<Self, String> {
        let p = prop(device);
        let mut gran = 0usize;
        check(
            unsafe { ffi::granularity(&mut gran, &p, ffi::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM) },
            "granularity",
        )?;
        let chunk_bytes = min_chunk.div_ceil(gran) * gran;
        let mut v = DeviceGrowVec { device, stream, va: 0, reserved: 0, chunk_bytes, chunks: Vec::new() };
        v.grow(1)?;
        Ok(v)
    }

    pub fn as_device_ptr(&self) -> ffi::CUdeviceptr {
        self.va
    }

    pub fn capacity_bytes(&self) -> usize {
        self.chunks.len() * self.chunk_bytes
    }

    /// Adds `extra` chunks at the end.
    pub fn grow(&mut self, extra: usize) -> Result<(), String> {
        let new_reserved = (self.chunks.len() + extra) * self.chunk_bytes;
        let mut new_va = 0;
        check(unsafe { ffi::cuMemAddressReserve(&mut new_va, new_reserved, 0, 0, 0) }, "reserve")?;

        for c in &self.chunks {
            check(unsafe { ffi::cuMemMap(new_va + c.offset as u64, self.chunk_bytes, 0, c.handle, 0) }, "remap")?;
        }
        let p = prop(self.device);
        for i in 0..extra {
            let offset = (self.chunks.len() + i) * self.chunk_bytes;
            let mut handle = 0;
            check(unsafe { ffi::cuMemCreate(&mut handle, self.chunk_bytes, &p, 0) }, "create")?;
            check(unsafe { ffi::cuMemMap(new_va + offset as u64, self.chunk_bytes, 0, handle, 0) }, "map")?;
            self.chunks.push(Chunk { handle, offset });
        }
        let a = access(self.device);
        check(unsafe { ffi::set_access(new_va, new_reserved, &a, 1) }, "access")?;

        if self.reserved != 0 {
            // Kernels still queued may use the old addresses.
            check(unsafe { ffi::cuStreamSynchronize(self.stream) }, "sync")?;
            check(unsafe { ffi::cuMemAddressFree(self.va, self.reserved) }, "free old range")?; // EXPECT: vmm_lifecycle
        }
        self.va = new_va;
        self.reserved = new_reserved;
        Ok(())
    }

    /// Appends `bytes` from another device buffer at byte offset `at`, growing as needed.
    pub fn extend_from_device(&mut self, at: usize, src: ffi::CUdeviceptr, bytes: usize) -> Result<(), String> {
        while at + bytes > self.capacity_bytes() {
            let need = (at + bytes - self.capacity_bytes()).div_ceil(self.chunk_bytes);
            self.grow(need)?;
        }
        check(unsafe { ffi::copy_dtod_async(self.va + at as u64, src, bytes, self.stream) }, "copy")
    }
}

impl Drop for DeviceGrowVec {
    fn drop(&mut self) {
        unsafe {
            let _ = ffi::cuStreamSynchronize(self.stream);
            for c in &self.chunks {
                let _ = ffi::cuMemUnmap(self.va + c.offset as u64, self.chunk_bytes);
                let _ = ffi::cuMemRelease(c.handle);
            }
            let _ = ffi::cuMemAddressFree(self.va, self.reserved);
        }
    }
}
