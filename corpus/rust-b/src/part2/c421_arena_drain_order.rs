//! case: a bump arena over one reservation that maps a chunk per grow; Drop drains the chunks (unmap, release each) and frees the reservation last
//! expect: none
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaStream, DriverError};

struct Chunk {
    va: sys::CUdeviceptr,
    bytes: usize,
    handle: sys::CUmemGenericAllocationHandle,
}

pub struct BumpArena {
    dev: i32,
    stream: Arc<CudaStream>,
    base: sys::CUdeviceptr,
    reserved: usize,
    chunks: Vec<Chunk>,
    mapped: usize,
    top: usize,
}

impl BumpArena {
    pub fn new(ctx: &Arc<CudaContext>, reserved: usize) -> Result<Self, DriverError> {
        let mut base = 0;
        unsafe { sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0).result()? };
        Ok(Self { dev: ctx.cu_device(), stream: ctx.default_stream(), base, reserved, chunks: Vec::new(), mapped: 0, top: 0 })
    }

    fn grow(&mut self, bytes: usize) -> Result<(), DriverError> {
        let loc = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: self.dev };
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location: loc,
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let desc = sys::CUmemAccessDesc { location: loc, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let va = self.base + self.mapped as u64;
        let mut handle = 0;
        unsafe {
            sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
            sys::cuMemMap(va, bytes, 0, handle, 0).result()?;
            sys::cuMemSetAccess(va, bytes, &desc, 1).result()?;
        }
        self.chunks.push(Chunk { va, bytes, handle });
        self.mapped += bytes;
        Ok(())
    }

    /// Bump-allocates `bytes` (rounded to 256), mapping 32 MiB more when needed.
    pub fn alloc(&mut self, bytes: usize) -> Result<sys::CUdeviceptr, DriverError> {
        let bytes = bytes.next_multiple_of(256);
        while self.top + bytes > self.mapped {
            if self.mapped + (32 << 20) > self.reserved {
                return Err(DriverError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY));
            }
            self.grow(32 << 20)?;
        }
        let p = self.base + self.top as u64;
        self.top += bytes;
        unsafe { sys::cuMemsetD8Async(p, 0, bytes, self.stream.cu_stream()).result()? };
        Ok(p)
    }
}

impl Drop for BumpArena {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        self.chunks.drain(..).for_each(|c| unsafe {
            let _ = sys::cuMemUnmap(c.va, c.bytes);
            let _ = sys::cuMemRelease(c.handle);
        });
        unsafe {
            let _ = sys::cuMemAddressFree(self.base, self.reserved);
        }
    }
}

pub fn plan_peak(ctx: &Arc<CudaContext>, sizes: &[usize]) -> Result<usize, DriverError> {
    let mut arena = BumpArena::new(ctx, 1 << 32)?;
    let ptrs = sizes.iter().map(|&s| arena.alloc(s)).collect::<Result<Vec<_>, _>>()?;
    arena.stream.synchronize()?;
    debug_assert_eq!(ptrs.len(), sizes.len());
    Ok(arena.mapped)
}
