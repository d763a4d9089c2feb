use std::mem::MaybeUninit;

use cudarc::driver::sys;

#[derive(Debug)]
pub struct ArenaError(pub sys::CUresult, pub &'static str);

pub(crate) fn ck(r: sys::CUresult, what: &'static str) -> Result<(), ArenaError> {
    if r == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(ArenaError(r, what)) }
}

struct Chunk {
    handle: sys::CUmemGenericAllocationHandle,
    offset: usize,
    size: usize,
}

/// Growable device arena: address space reserved once, physical memory added on demand, so
/// pointers handed to kernels stay valid across growth.
pub struct NeighborArena {
    device: i32,
    pub stream: sys::CUstream,
    base: sys::CUdeviceptr,
    reserved: usize,
    mapped: usize,
    gran: usize,
    chunks: Vec<Chunk>,
}

impl NeighborArena {
    fn prop(device: i32) -> sys::CUmemAllocationProp {
        let mut prop: sys::CUmemAllocationProp = unsafe { MaybeUninit::zeroed().assume_init() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        prop
    }

    pub fn reserve(device: i32, stream: sys::CUstream, max_bytes: usize) -> Result<Self, ArenaError> {
        let prop = Self::prop(device);
        let mut gran = 0usize;
        unsafe {
            ck(
                sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM),
                "granularity",
            )?;
        }
        let reserved = max_bytes.div_ceil(gran) * gran;
        let mut base = 0;
        unsafe { ck(sys::cuMemAddressReserve(&mut base, reserved, gran, 0, 0), "reserve")? };
        Ok(Self { device, stream, base, reserved, mapped: 0, gran, chunks: Vec::new() })
    }

    pub fn base(&self) -> sys::CUdeviceptr {
        self.base
    }

    pub fn mapped_bytes(&self) -> usize {
        self.mapped
    }

    /// Makes at least `bytes` usable, mapping and granting access to new chunks as needed.
    pub fn ensure(&mut self, bytes: usize) -> Result<(), ArenaError> {
        while self.mapped < bytes {
            let want = (bytes - self.mapped).div_ceil(self.gran) * self.gran;
            let size = want.max(4 * self.gran).min(self.reserved - self.mapped);
            if size == 0 {
                return Err(ArenaError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY, "arena exhausted"));
            }
            let prop = Self::prop(self.device);
            let mut handle = 0;
            unsafe {
                ck(sys::cuMemCreate(&mut handle, size, &prop, 0), "create")?;
                let at = self.base + self.mapped as u64;
                if let Err(e) = ck(sys::cuMemMap(at, size, 0, handle, 0), "map") {
                    sys::cuMemRelease(handle);
                    return Err(e);
                }
                let access = sys::CUmemAccessDesc {
                    location: prop.location,
                    flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
                };
                if let Err(e) = ck(sys::cuMemSetAccess(at, size, &access, 1), "set access") {
                    sys::cuMemUnmap(at, size);
                    sys::cuMemRelease(handle);
                    return Err(e);
                }
            }
            self.chunks.push(Chunk { handle, offset: self.mapped, size });
            self.mapped += size;
        }
        Ok(())
    }
}

impl Drop for NeighborArena {
    fn drop(&mut self) {
        unsafe {
            sys::cuStreamSynchronize(self.stream);
            for c in self.chunks.drain(..).rev() {
                sys::cuMemUnmap(self.base + c.offset as u64, c.size);
                sys::cuMemRelease(c.handle);
            }
            sys::cuMemAddressFree(self.base, self.reserved);
        }
    }
}
