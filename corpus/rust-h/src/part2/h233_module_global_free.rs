//! case: inference server counts served requests in a `__device__` global of its kernel module; at shutdown it fetches the global with `cuModuleGetGlobal`, reads it by dereferencing the device address on the host, and then "releases" it with `cuMemFree_v2` although a module global is not an allocation
//! expect: host_deref_device_ptr=1, mismatched_free=1

use std::ffi::{c_void, CString};
use std::ptr;
use std::sync::Arc;

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmodule};
use cudarc::driver::{CudaContext, CudaStream, DriverError};
use cudarc::nvrtc::compile_ptx;

const SERVE_SRC: &str = r#"
__device__ unsigned long long g_served;
extern "C" __global__ void argmax_rows(const float* logits, unsigned* labels, unsigned rows, unsigned cols) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    unsigned best = 0;
    for (unsigned c = 1; c < cols; ++c) if (logits[r * cols + c] > logits[r * cols + best]) best = c;
    labels[r] = best;
    atomicAdd(&g_served, 1ull);
}
"#;

pub struct ServingModule {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    module: CUmodule,
    argmax: CUfunction,
}

impl ServingModule {
    pub fn load(ctx: Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let image = CString::new(compile_ptx(SERVE_SRC)?.to_src())?;
        let mut module: CUmodule = ptr::null_mut();
        let mut argmax: CUfunction = ptr::null_mut();
        unsafe {
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut argmax, module, c"argmax_rows".as_ptr()).result()?;
        }
        Ok(Self { ctx, stream, module, argmax })
    }

    pub fn classify(&self, logits: CUdeviceptr, labels: CUdeviceptr, rows: u32, cols: u32) -> Result<(), DriverError> {
        let (mut l, mut o, mut r, mut c) = (logits, labels, rows, cols);
        let mut params: [*mut c_void; 4] = [
            (&mut l as *mut CUdeviceptr).cast(),
            (&mut o as *mut CUdeviceptr).cast(),
            (&mut r as *mut u32).cast(),
            (&mut c as *mut u32).cast(),
        ];
        unsafe { result::launch_kernel(self.argmax, (rows.div_ceil(256), 1, 1), (256, 1, 1), 0, self.stream.cu_stream(), &mut params) }
    }

    /// Drains the stream and returns the total number of rows served.
    pub fn shutdown(self) -> Result<u64, DriverError> {
        self.stream.synchronize()?;
        let (counter, _bytes) = unsafe { result::module::get_global(self.module, CString::new("g_served").unwrap())? };
        let served = unsafe { *(counter as *const u64) }; // EXPECT: host_deref_device_ptr
        unsafe { sys::cuMemFree_v2(counter).result()? }; // EXPECT: mismatched_free
        unsafe { sys::cuModuleUnload(self.module).result()? };
        let _ = &self.ctx;
        Ok(served)
    }
}
