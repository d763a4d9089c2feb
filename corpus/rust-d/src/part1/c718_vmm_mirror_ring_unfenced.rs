//! case: an audio FIR stage keeps its history in a mirrored ring (one physical allocation mapped at `base` and at `base + size` with the VMM driver API); its kernel writes the new block through the first mapping and reads the filter window through the second one, with no `fence.proxy.alias` in between
//! expect: unfenced_vmm_alias=1

use std::ffi::c_void;
use std::mem::{size_of, zeroed};
use std::sync::Arc;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUmemAccessDesc, CUmemAllocationProp, CUmemGenericAllocationHandle, CUstream};
use cudarc::driver::{CudaContext, CudaFunction};
use cudarc::nvrtc::compile_ptx;

const FIR_CU: &str = r#"
// One block of `block_len` threads. `ring` and `mirror` are two virtual views of the same
// physical history buffer of `size_elems` samples: mirror[k] is ring[k].
extern "C" __global__ void fir_push(float* ring, const float* mirror, const float* block,
                                    const float* taps, float* out,
                                    int head, int size_elems, int ntaps) {
    int i = threadIdx.x;
    ring[(head + i) % size_elems] = block[i];
    __syncthreads();
    float acc = 0.f;
    for (int t = 0; t < ntaps; ++t) {
        int k = (head + i - t + size_elems) % size_elems;
        acc += taps[t] * mirror[k];
    }
    out[i] = acc;
}
"#;

pub struct MirroredHistory {
    _ctx: Arc<CudaContext>,
    fir: CudaFunction,
    stream: CUstream,
    base: CUdeviceptr,
    size: usize,
    handle: CUmemGenericAllocationHandle,
    head: i32,
}

impl MirroredHistory {
    pub fn new(ctx: Arc<CudaContext>, stream: CUstream, min_bytes: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let fir = ctx.load_module(compile_ptx(FIR_CU)?)?.load_function("fir_push")?;
        let device = ctx.ordinal() as i32;
        let mut prop: CUmemAllocationProp = unsafe { zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        let mut access: CUmemAccessDesc = unsafe { zeroed() };
        access.location = prop.location;
        access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;

        let (mut gran, mut handle, mut base) = (0usize, 0, 0);
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
            let size = min_bytes.next_multiple_of(gran);
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0).result()?;
            sys::cuMemMap(base, size, 0, handle, 0).result()?;
            sys::cuMemMap(base + size as u64, size, 0, handle, 0).result()?;
            sys::cuMemSetAccess(base, 2 * size, &access, 1).result()?;
            sys::cuMemsetD8Async(base, 0, size, stream).result()?;
            Ok(Self { _ctx: ctx, fir, stream, base, size, handle, head: 0 })
        }
    }

    /// Pushes `block_len` new samples (already on the device) and filters them.
    pub fn push(&mut self, block: CUdeviceptr, taps: CUdeviceptr, ntaps: i32, out: CUdeviceptr, block_len: u32) -> Result<(), DriverError> {
        let size_elems = (self.size / size_of::<f32>()) as i32;
        let mut ring = self.base;
        let mut mirror = self.base + self.size as u64;
        let (mut block, mut taps, mut out, mut head, mut size_elems, mut ntaps) = (block, taps, out, self.head, size_elems, ntaps);
        let mut params: Vec<*mut c_void> = vec![
            (&mut ring as *mut CUdeviceptr).cast(),
            (&mut mirror as *mut CUdeviceptr).cast(),
            (&mut block as *mut CUdeviceptr).cast(),
            (&mut taps as *mut CUdeviceptr).cast(),
            (&mut out as *mut CUdeviceptr).cast(),
            (&mut head as *mut i32).cast(),
            (&mut size_elems as *mut i32).cast(),
            (&mut ntaps as *mut i32).cast(),
        ];
        unsafe { result::launch_kernel(self.fir.cu_function(), (1, 1, 1), (block_len, 1, 1), 0, self.stream, &mut params)? }; // EXPECT: unfenced_vmm_alias
        self.head = (self.head + block_len as i32) % size_elems;
        Ok(())
    }
}

impl Drop for MirroredHistory {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemUnmap(self.base, self.size);
            let _ = sys::cuMemUnmap(self.base + self.size as u64, self.size);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, 2 * self.size);
        }
    }
}
