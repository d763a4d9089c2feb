//! case: a generic mirrored log ring (one allocation at base and base+size); the append kernel writes through the low view and fences with fence.proxy.alias before reading the high view
//! expect: none
use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DeviceRepr, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const LOG_SRC: &str = r#"
extern "C" __global__ void append_and_checksum(unsigned* lo, const unsigned* hi, const unsigned* rec,
                                               unsigned* sums, unsigned tail, unsigned cap, unsigned n) {
    unsigned i = threadIdx.x;
    unsigned slot = (tail + i) % cap;
    if (i < n) lo[slot] = rec[i];
    asm volatile("fence.proxy.alias;" ::: "memory");
    __syncthreads();
    if (i >= n) return;
    // records that straddle the end are read contiguously through the upper view
    const unsigned* r = hi + slot - (slot >= 3 ? 3 : slot);
    sums[i] = r[0] ^ r[1] ^ r[2] ^ r[3];
}
"#;

fn vmm_prop(dev: i32) -> (sys::CUmemAllocationProp, sys::CUmemAccessDesc) {
    let loc = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev };
    let prop = sys::CUmemAllocationProp {
        type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
        location: loc,
        win32HandleMetaData: std::ptr::null_mut(),
        allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
    };
    (prop, sys::CUmemAccessDesc { location: loc, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE })
}

pub struct MirrorLog<T: DeviceRepr> {
    base: sys::CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
    tail: u32,
    _t: PhantomData<T>,
}

impl<T: DeviceRepr> MirrorLog<T> {
    pub fn with_capacity(ctx: &Arc<CudaContext>, elems: usize) -> Result<Self, DriverError> {
        let (prop, access) = vmm_prop(ctx.cu_device());
        let mut gran = 0usize;
        let (mut base, mut handle) = (0, 0);
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED).result()?;
            let size = (elems * std::mem::size_of::<T>()).div_ceil(gran) * gran;
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemAddressReserve(&mut base, 2 * size, gran, 0, 0).result()?;
            sys::cuMemMap(base, size, 0, handle, 0).result()?;
            sys::cuMemMap(base + size as u64, size, 0, handle, 0).result()?;
            sys::cuMemSetAccess(base, 2 * size, &access, 1).result()?;
            Ok(Self { base, size, handle, tail: 0, _t: PhantomData })
        }
    }

    fn cap(&self) -> u32 {
        (self.size / std::mem::size_of::<T>()) as u32
    }

    pub fn append(&mut self, stream: &CudaStream, f: &CudaFunction, rec: &CudaSlice<T>, sums: &mut CudaSlice<u32>) -> Result<(), DriverError> {
        let n = rec.len() as u32;
        let cap = self.cap();
        let upper = self.base + self.size as u64;
        let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (n.min(1024), 1, 1), shared_mem_bytes: 0 };
        let mut b = stream.launch_builder(f);
        b.arg(&self.base).arg(&upper).arg(rec).arg(sums).arg(&self.tail).arg(&cap).arg(&n);
        unsafe { b.launch(cfg)? };
        self.tail = (self.tail + n) % cap;
        Ok(())
    }
}

impl<T: DeviceRepr> Drop for MirrorLog<T> {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemUnmap(self.base, self.size);
            let _ = sys::cuMemUnmap(self.base + self.size as u64, self.size);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, 2 * self.size);
        }
    }
}

pub fn run_log(ctx: &Arc<CudaContext>, rounds: usize) -> Result<(), Box<dyn std::error::Error>> {
    let module = ctx.load_module(compile_ptx(LOG_SRC)?)?;
    let f = module.load_function("append_and_checksum")?;
    let stream = ctx.default_stream();
    let mut log = MirrorLog::<u32>::with_capacity(ctx, 1 << 19)?;
    let rec = stream.alloc_zeros::<u32>(256)?;
    let mut sums = stream.alloc_zeros::<u32>(256)?;
    (0..rounds).try_for_each(|_| log.append(&stream, &f, &rec, &mut sums))?;
    stream.synchronize()?;
    Ok(())
}
