//! case: a Vec page-locked in place (cuMemHostRegister) and unregistered in Drop; a module global is only read, never freed
//! expect: none
use std::ffi::{c_void, CString};

use cudarc::driver::{sys, DriverError};

const HIST_SRC: &str = r#"
__device__ unsigned int g_bins[64];

extern "C" __global__ void hist(const unsigned char* px, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&g_bins[px[i] >> 2], 1u);
}
"#;

/// Host pixels, page-locked where they live so that uploads are DMA.
pub struct RegisteredPixels {
    data: Vec<u8>,
}

impl RegisteredPixels {
    pub fn new(data: Vec<u8>) -> Result<Self, DriverError> {
        let mut this = Self { data };
        unsafe {
            sys::cuMemHostRegister_v2(this.data.as_mut_ptr().cast(), this.data.len(), sys::CU_MEMHOSTREGISTER_PORTABLE)
                .result()?;
        }
        Ok(this)
    }
}

impl Drop for RegisteredPixels {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemHostUnregister(self.data.as_mut_ptr().cast());
        }
        // The Vec itself is freed by its own Drop afterwards.
    }
}

pub fn histogram(pixels: Vec<u8>) -> Result<[u32; 64], Box<dyn std::error::Error>> {
    let image = CString::new(cudarc::nvrtc::compile_ptx(HIST_SRC)?.to_src())?;
    let host = RegisteredPixels::new(pixels)?;
    let n = host.data.len();
    let mut module = std::ptr::null_mut();
    let mut func = std::ptr::null_mut();
    let mut bins: sys::CUdeviceptr = 0;
    let mut bins_bytes = 0usize;
    let mut dev: sys::CUdeviceptr = 0;
    let mut stream = std::ptr::null_mut();
    let mut out = [0u32; 64];
    unsafe {
        sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
        sys::cuModuleGetFunction(&mut func, module, c"hist".as_ptr()).result()?;
        sys::cuModuleGetGlobal_v2(&mut bins, &mut bins_bytes, module, c"g_bins".as_ptr()).result()?;
        sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
        sys::cuMemAlloc_v2(&mut dev, n).result()?;
        sys::cuMemsetD32Async(bins, 0, 64, stream).result()?;
        sys::cuMemcpyHtoDAsync_v2(dev, host.data.as_ptr().cast(), n, stream).result()?;
        let mut px = dev;
        let mut n_arg = n as u32;
        let mut params: [*mut c_void; 2] = [(&mut px as *mut u64).cast(), (&mut n_arg as *mut u32).cast()];
        sys::cuLaunchKernel(func, (n as u32).div_ceil(256), 1, 1, 256, 1, 1, 0, stream, params.as_mut_ptr(), std::ptr::null_mut())
            .result()?;
        sys::cuMemcpyDtoHAsync_v2(out.as_mut_ptr().cast(), bins, 256, stream).result()?;
        sys::cuStreamSynchronize(stream).result()?;
        sys::cuMemFree_v2(dev).result()?;
        sys::cuStreamDestroy_v2(stream).result()?;
        // `bins` belongs to the module: unloading the module is all it needs.
        sys::cuModuleUnload(module).result()?;
    }
    drop(host);
    Ok(out)
}
