//! case: a frame pool that releases each handle right after mapping it (CUDA keeps the memory while mapped), grants access through a closure, and unmaps before freeing the range
//! expect: none
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, DriverError};

pub struct FramePool {
    base: sys::CUdeviceptr,
    frame_bytes: usize,
    reserved_frames: usize,
    frames: usize,
}

impl FramePool {
    pub fn new(ctx: &Arc<CudaContext>, frame_bytes: usize, frames: usize) -> Result<Self, DriverError> {
        let loc = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: ctx.cu_device() };
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location: loc,
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let grant = |va: sys::CUdeviceptr, len: usize| -> Result<(), DriverError> {
            let desc = sys::CUmemAccessDesc { location: loc, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
            unsafe { sys::cuMemSetAccess(va, len, &desc, 1).result() }
        };
        let mut base = 0;
        unsafe { sys::cuMemAddressReserve(&mut base, frame_bytes * frames, 0, 0, 0).result()? };
        // on an early return the pool drops: what was mapped so far is unmapped, then the range freed
        let mut pool = Self { base, frame_bytes, reserved_frames: frames, frames: 0 };
        for i in 0..frames {
            let va = base + (i * frame_bytes) as u64;
            let mut h = 0;
            unsafe {
                sys::cuMemCreate(&mut h, frame_bytes, &prop, 0).result()?;
                if let Err(e) = sys::cuMemMap(va, frame_bytes, 0, h, 0).result() {
                    let _ = sys::cuMemRelease(h);
                    return Err(e);
                }
                pool.frames += 1;
                // the mapping keeps the memory alive; nothing else needs the handle
                sys::cuMemRelease(h).result()?;
            }
        }
        grant(base, frame_bytes * frames)?;
        Ok(pool)
    }

    pub fn frame(&self, i: usize) -> sys::CUdeviceptr {
        assert!(i < self.frames);
        self.base + (i * self.frame_bytes) as u64
    }

    pub fn clear_all(&self, stream: sys::CUstream) -> Result<(), DriverError> {
        (0..self.frames).try_for_each(|i| unsafe { sys::cuMemsetD32Async(self.frame(i), 0, self.frame_bytes / 4, stream).result() })
    }
}

impl Drop for FramePool {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            for i in 0..self.frames {
                let _ = sys::cuMemUnmap(self.frame(i), self.frame_bytes);
            }
            let _ = sys::cuMemAddressFree(self.base, self.frame_bytes * self.reserved_frames);
        }
    }
}

pub fn run(ctx: &Arc<CudaContext>) -> Result<(), DriverError> {
    let pool = FramePool::new(ctx, 8 << 20, 4)?;
    let stream = ctx.default_stream();
    pool.clear_all(stream.cu_stream())?;
    stream.synchronize()
}
