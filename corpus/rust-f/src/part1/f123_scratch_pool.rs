//! case: a scratch pool built on the driver's VMM calls that releases each physical handle right after mapping it (allowed: the memory lives until its last mapping goes), grants access before any use, re-grants after remapping a slot, and tears down in the documented order (synchronize, unmap, free the range)
//! expect: none

use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const TOUCH_SRC: &str = r#"
extern "C" __global__ void touch_pages(unsigned int* p, unsigned long long words, unsigned int tag)
{
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    for (; i < words; i += (unsigned long long)gridDim.x * blockDim.x) p[i] = tag ^ (unsigned int)i;
}
"#;

pub struct ScratchPool {
    ctx: Arc<CudaContext>,
    touch: CudaFunction,
    stream: CUstream,
    base: CUdeviceptr,
    slot: usize,
    slots: usize,
    prop: sys::CUmemAllocationProp,
}

impl ScratchPool {
    pub fn new(ctx: &Arc<CudaContext>, slot_bytes: usize, slots: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let touch = ctx.load_module(compile_ptx(TOUCH_SRC)?)?.load_function("touch_pages")?;
        let mut prop: sys::CUmemAllocationProp = unsafe { MaybeUninit::zeroed().assume_init() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = ctx.ordinal() as i32;
        let mut gran = 0usize;
        let mut base: CUdeviceptr = 0;
        let mut stream: CUstream = null_mut();
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
                .result()?;
        }
        let slot = slot_bytes.div_ceil(gran) * gran;
        unsafe {
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAddressReserve(&mut base, slot * slots, 0, 0, 0).result()?;
        }
        let pool = Self { ctx: ctx.clone(), touch, stream, base, slot, slots, prop };
        for i in 0..slots {
            pool.back_slot(i)?;
        }
        Ok(pool)
    }

    fn slot_ptr(&self, i: usize) -> CUdeviceptr {
        self.base + (i * self.slot) as u64
    }

    /// Maps fresh memory at slot `i` and grants this device read-write access to it.
    fn back_slot(&self, i: usize) -> Result<(), DriverError> {
        let mut handle: CUmemGenericAllocationHandle = 0;
        let ptr = self.slot_ptr(i);
        let access = sys::CUmemAccessDesc { location: self.prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        unsafe {
            sys::cuMemCreate(&mut handle, self.slot, &self.prop, 0).result()?;
            sys::cuMemMap(ptr, self.slot, 0, handle, 0).result()?;
            sys::cuMemRelease(handle).result()?;
            sys::cuMemSetAccess(ptr, self.slot, &access, 1).result()?;
        }
        Ok(())
    }

    pub fn stamp(&self, i: usize, tag: u32) -> Result<(), DriverError> {
        let mut p = self.slot_ptr(i);
        let mut words = (self.slot / 4) as u64;
        let mut tag = tag;
        let mut args = [
            (&mut p) as *mut CUdeviceptr as *mut c_void,
            (&mut words) as *mut u64 as *mut c_void,
            (&mut tag) as *mut u32 as *mut c_void,
        ];
        unsafe { sys::cuLaunchKernel(self.touch.cu_function(), 512, 1, 1, 256, 1, 1, 0, self.stream, args.as_mut_ptr(), null_mut()).result() }
    }

    /// Gives slot `i` fresh memory (its old contents are garbage to the caller anyway).
    pub fn recycle(&self, i: usize) -> Result<(), DriverError> {
        unsafe {
            sys::cuStreamSynchronize(self.stream).result()?;
            sys::cuMemUnmap(self.slot_ptr(i), self.slot).result()?;
        }
        self.back_slot(i)?;
        unsafe { sys::cuMemsetD32Async(self.slot_ptr(i), 0, self.slot / 4, self.stream).result() }
    }
}

impl Drop for ScratchPool {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            for i in 0..self.slots {
                let _ = sys::cuMemUnmap(self.slot_ptr(i), self.slot);
            }
            let _ = sys::cuMemAddressFree(self.base, self.slot * self.slots);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let pool = ScratchPool::new(&ctx, 8 << 20, 4)?;
    for round in 0..3u32 {
        (0..4).try_for_each(|i| pool.stamp(i, round * 16 + i as u32))?;
        pool.recycle((round % 4) as usize)?;
    }
    Ok(())
}
