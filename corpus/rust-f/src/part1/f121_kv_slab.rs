//! case: a KV-cache slab is mapped and granted access in `new`; `rebuild` waits for the stream, unmaps, releases the old backing, maps a fresh allocation at the same address and relaunches the init kernel on it, without setting access again (a new mapping starts with no access, whatever the range had before)
//! expect: vmm_lifecycle=1

use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const KV_SRC: &str = r#"
extern "C" __global__ void kv_init(unsigned short* kv, unsigned long long halfs, unsigned short fill)
{
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    for (; i < halfs; i += (unsigned long long)gridDim.x * blockDim.x) kv[i] = fill;
}
"#;

pub struct KvSlab {
    ctx: Arc<CudaContext>,
    init: CudaFunction,
    stream: CUstream,
    va: CUdeviceptr,
    size: usize,
    handle: CUmemGenericAllocationHandle,
    prop: sys::CUmemAllocationProp,
    generation: u32,
}

impl KvSlab {
    pub fn new(ctx: &Arc<CudaContext>, bytes: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let init = ctx.load_module(compile_ptx(KV_SRC)?)?.load_function("kv_init")?;
        let mut prop: sys::CUmemAllocationProp = unsafe { MaybeUninit::zeroed().assume_init() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = ctx.ordinal() as i32;
        let mut gran = 0usize;
        let mut stream: CUstream = null_mut();
        let (mut va, mut handle): (CUdeviceptr, CUmemGenericAllocationHandle) = (0, 0);
        let size;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
                .result()?;
            size = bytes.div_ceil(gran) * gran;
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAddressReserve(&mut va, size, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemMap(va, size, 0, handle, 0).result()?;
            let access = sys::CUmemAccessDesc { location: prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
            sys::cuMemSetAccess(va, size, &access, 1).result()?;
        }
        let mut slab = Self { ctx: ctx.clone(), init, stream, va, size, handle, prop, generation: 0 };
        slab.launch_init(0)?;
        Ok(slab)
    }

    fn launch_init(&mut self, fill: u16) -> Result<(), DriverError> {
        let mut kv = self.va;
        let mut halfs = (self.size / 2) as u64;
        let mut fill = fill;
        let mut args = [
            (&mut kv) as *mut CUdeviceptr as *mut c_void,
            (&mut halfs) as *mut u64 as *mut c_void,
            (&mut fill) as *mut u16 as *mut c_void,
        ];
        unsafe {
            sys::cuLaunchKernel(self.init.cu_function(), 1024, 1, 1, 256, 1, 1, 0, self.stream, args.as_mut_ptr(), null_mut()).result()
        }
    }

    /// Drops every cached entry by swapping in fresh physical memory (cheaper than clearing it).
    pub fn rebuild(&mut self) -> Result<(), DriverError> {
        self.ctx.bind_to_thread()?;
        unsafe {
            sys::cuStreamSynchronize(self.stream).result()?;
            sys::cuMemUnmap(self.va, self.size).result()?;
            sys::cuMemRelease(self.handle).result()?;
            sys::cuMemCreate(&mut self.handle, self.size, &self.prop, 0).result()?;
            sys::cuMemMap(self.va, self.size, 0, self.handle, 0).result()?;
        }
        self.generation += 1;
        let mut kv = self.va;
        let mut halfs = (self.size / 2) as u64;
        let mut fill = 0u16;
        let mut args = [
            (&mut kv) as *mut CUdeviceptr as *mut c_void,
            (&mut halfs) as *mut u64 as *mut c_void,
            (&mut fill) as *mut u16 as *mut c_void,
        ];
        unsafe {
            sys::cuLaunchKernel(self.init.cu_function(), 1024, 1, 1, 256, 1, 1, 0, self.stream, args.as_mut_ptr(), null_mut()) // EXPECT: vmm_lifecycle
                .result()
        }
    }

    pub fn sync(&self) -> Result<(), DriverError> {
        unsafe { sys::cuStreamSynchronize(self.stream).result() }
    }
}

impl Drop for KvSlab {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemUnmap(self.va, self.size);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.va, self.size);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let mut slab = KvSlab::new(&ctx, 256 << 20)?;
    slab.sync()?;
    for _ in 0..3 {
        slab.rebuild()?;
        slab.sync()?;
    }
    println!("slab rebuilt {} times", slab.generation);
    Ok(())
}
