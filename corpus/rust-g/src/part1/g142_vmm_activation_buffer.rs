//! case: growable activation buffer on the raw VMM API that follows the documented order: reserve, create, map, set access, use; it releases the physical handle right after mapping (CUDA keeps the memory alive while it is mapped), and its `Drop` synchronizes, unmaps and only then frees the reserved range
//! expect: none

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const NORM_SRC: &str = r#"
extern "C" __global__ void rmsnorm(float* x, const float* gamma, unsigned rows, unsigned dim, float eps) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float* row = x + (size_t)r * dim;
    float ss = 0.0f;
    for (unsigned k = 0; k < dim; ++k) ss += row[k] * row[k];
    float inv = rsqrtf(ss / dim + eps);
    for (unsigned k = 0; k < dim; ++k) row[k] = row[k] * inv * gamma[k];
}
"#;

pub struct VmmBuffer {
    stream: Arc<CudaStream>,
    va: sys::CUdeviceptr,
    bytes: usize,
}

impl VmmBuffer {
    pub fn new(stream: Arc<CudaStream>, min_bytes: usize) -> Result<Self> {
        let dev = stream.context().cu_device();
        let location = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev };
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location,
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let mut gran = 0usize;
        let (mut va, mut handle) = (0, 0);
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
            let bytes = min_bytes.div_ceil(gran) * gran;
            sys::cuMemAddressReserve(&mut va, bytes, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
            sys::cuMemMap(va, bytes, 0, handle, 0).result()?;
            // the mapping holds its own reference to the memory
            sys::cuMemRelease(handle).result()?;
            let desc = sys::CUmemAccessDesc { location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
            sys::cuMemSetAccess(va, bytes, &desc, 1).result()?;
            Ok(VmmBuffer { stream, va, bytes })
        }
    }

    pub fn ptr(&self) -> sys::CUdeviceptr {
        self.va
    }
}

impl Drop for VmmBuffer {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            let _ = sys::cuMemUnmap(self.va, self.bytes);
            let _ = sys::cuMemAddressFree(self.va, self.bytes);
        }
    }
}

pub fn normalize_hidden(rows: u32, dim: u32) -> Result<()> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let rms = ctx.load_module(compile_ptx(NORM_SRC)?)?.load_function("rmsnorm")?;
    let hidden = VmmBuffer::new(stream.clone(), (rows * dim) as usize * 4)?;
    let gamma = stream.alloc_zeros::<f32>(dim as usize)?;
    unsafe {
        sys::cuMemsetD32Async(hidden.ptr(), 0x3f80_0000, (rows * dim) as usize, stream.cu_stream()).result()?;
    }
    let x = hidden.ptr();
    let eps = 1e-6f32;
    let mut b = stream.launch_builder(&rms);
    b.arg(&x).arg(&gamma).arg(&rows).arg(&dim).arg(&eps);
    unsafe { b.launch(LaunchConfig::for_num_elems(rows))? };
    stream.synchronize()?;
    Ok(())
}
