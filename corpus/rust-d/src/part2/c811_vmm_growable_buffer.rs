//! case: a VMM-backed growable device vector (cudarc `driver::sys`) reserves a large range once and maps a new physical chunk at the end on each growth, granting access to exactly that chunk right after mapping it; appends go through a kernel, and Drop synchronizes, unmaps every chunk, releases it, then frees the range
//! expect: none

use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle, CUresult};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const APPEND_SRC: &str = r#"
extern "C" __global__ void append_iota(unsigned int* data, unsigned long long start, unsigned int count) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) data[start + i] = (unsigned int)(start + i);
}
"#;

fn ok(r: CUresult) -> Result<(), DriverError> {
    r.result()
}

pub struct GrowableVec {
    stream: Arc<CudaStream>,
    append: CudaFunction,
    base: CUdeviceptr,
    reserved: usize,
    mapped: usize,
    len: usize,
    gran: usize,
    prop: sys::CUmemAllocationProp,
    access: sys::CUmemAccessDesc,
    chunks: Vec<(CUdeviceptr, usize, CUmemGenericAllocationHandle)>,
}

impl GrowableVec {
    pub fn new(ctx: &Arc<CudaContext>, max_elems: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let device = ctx.ordinal() as i32;
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        let mut access: sys::CUmemAccessDesc = unsafe { std::mem::zeroed() };
        access.location = prop.location;
        access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;

        let mut gran = 0usize;
        let gran_opt = sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED;
        ok(unsafe { sys::cuMemGetAllocationGranularity(&mut gran, &prop, gran_opt) })?;
        let reserved = (max_elems * 4).div_ceil(gran) * gran;
        let mut base = 0;
        ok(unsafe { sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0) })?;

        let stream = ctx.new_stream()?;
        let append = ctx.load_module(compile_ptx(APPEND_SRC)?)?.load_function("append_iota")?;
        Ok(Self { stream, append, base, reserved, mapped: 0, len: 0, gran, prop, access, chunks: Vec::new() })
    }

    fn ensure_capacity(&mut self, bytes: usize) -> Result<(), DriverError> {
        while self.mapped < bytes {
            let chunk = (bytes - self.mapped).div_ceil(self.gran) * self.gran;
            assert!(self.mapped + chunk <= self.reserved, "reservation exhausted");
            let at = self.base + self.mapped as u64;
            let mut handle = 0;
            unsafe {
                ok(sys::cuMemCreate(&mut handle, chunk, &self.prop, 0))?;
                ok(sys::cuMemMap(at, chunk, 0, handle, 0))?;
                ok(sys::cuMemSetAccess(at, chunk, &self.access, 1))?;
            }
            self.chunks.push((at, chunk, handle));
            self.mapped += chunk;
        }
        Ok(())
    }

    pub fn extend_iota(&mut self, count: u32) -> Result<(), DriverError> {
        self.ensure_capacity((self.len + count as usize) * 4)?;
        let (ptr, start) = (self.base, self.len as u64);
        let mut launch = self.stream.launch_builder(&self.append);
        launch.arg(&ptr).arg(&start).arg(&count);
        unsafe { launch.launch(LaunchConfig::for_num_elems(count)) }?;
        self.len += count as usize;
        Ok(())
    }
}

impl Drop for GrowableVec {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        for (at, size, handle) in self.chunks.drain(..).rev() {
            unsafe {
                sys::cuMemUnmap(at, size);
                sys::cuMemRelease(handle);
            }
        }
        unsafe { sys::cuMemAddressFree(self.base, self.reserved) };
    }
}
