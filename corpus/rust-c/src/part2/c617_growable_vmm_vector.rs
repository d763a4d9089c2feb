//! case: a growable device vector on VMM (reserve once, map a chunk per growth step and grant access to it, launch on the mapped prefix, then synchronize, unmap, release and free the range in that order on drop)
//! expect: none

use std::error::Error;
use std::mem::zeroed;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const AXPY_SRC: &str = r#"
extern "C" __global__ void axpy_inplace(float* y, float a, float b, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * y[i] + b;
}
"#;

pub struct GrowableVec {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    axpy: CudaFunction,
    prop: sys::CUmemAllocationProp,
    base: sys::CUdeviceptr,
    reserved: usize,
    granularity: usize,
    chunks: Vec<(sys::CUmemGenericAllocationHandle, usize)>,
    mapped: usize,
}

impl GrowableVec {
    pub fn with_max_bytes(ctx: Arc<CudaContext>, max_bytes: usize) -> Result<Self, Box<dyn Error>> {
        ctx.bind_to_thread()?;
        let mut prop: sys::CUmemAllocationProp = unsafe { zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = ctx.ordinal() as i32;
        let mut granularity = 0;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut granularity, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
                .result()?;
        }
        let reserved = max_bytes.div_ceil(granularity) * granularity;
        let mut base = 0;
        unsafe { sys::cuMemAddressReserve(&mut base, reserved, granularity, 0, 0).result()? };
        let stream = ctx.new_stream()?;
        let axpy = ctx.load_module(compile_ptx(AXPY_SRC)?)?.load_function("axpy_inplace")?;
        Ok(Self { ctx, stream, axpy, prop, base, reserved, granularity, chunks: Vec::new(), mapped: 0 })
    }

    /// Makes sure at least `bytes` are mapped and accessible.
    pub fn reserve_bytes(&mut self, bytes: usize) -> Result<(), DriverError> {
        while self.mapped < bytes {
            let size = (bytes - self.mapped).div_ceil(self.granularity) * self.granularity;
            assert!(self.mapped + size <= self.reserved, "grew past the reservation");
            let at = self.base + self.mapped as u64;
            let mut handle = 0;
            let access = sys::CUmemAccessDesc {
                location: self.prop.location,
                flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
            };
            unsafe {
                sys::cuMemCreate(&mut handle, size, &self.prop, 0).result()?;
                sys::cuMemMap(at, size, 0, handle, 0).result()?;
                sys::cuMemSetAccess(at, size, &access, 1).result()?;
            }
            self.chunks.push((handle, size));
            self.mapped += size;
        }
        Ok(())
    }

    /// y = a * y + b over the first `len` floats.
    pub fn affine(&mut self, len: usize, a: f32, b: f32) -> Result<(), DriverError> {
        self.reserve_bytes(len * 4)?;
        let (y, n) = (self.base, len as u64);
        let cfg = LaunchConfig::for_num_elems(len as u32);
        unsafe { self.stream.launch_builder(&self.axpy).arg(&y).arg(&a).arg(&b).arg(&n).launch(cfg)? };
        Ok(())
    }
}

impl Drop for GrowableVec {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        let _ = self.stream.synchronize();
        unsafe {
            if self.mapped > 0 {
                let _ = sys::cuMemUnmap(self.base, self.mapped);
            }
            for (handle, _) in self.chunks.drain(..) {
                let _ = sys::cuMemRelease(handle);
            }
            let _ = sys::cuMemAddressFree(self.base, self.reserved);
        }
    }
}

pub fn demo(ctx: Arc<CudaContext>) -> Result<(), Box<dyn Error>> {
    let mut v = GrowableVec::with_max_bytes(ctx, 1 << 30)?;
    for len in [1usize << 16, 1 << 20, 3 << 20] {
        v.affine(len, 0.5, 1.0)?;
    }
    Ok(())
}
