//! case: a softplus activation launched on a created stream; in warm-up mode the function returns early and releases the buffers with cuMemFree_v2 without waiting for the kernel, while the normal path synchronizes the stream first (the free relies on an implicit wait on that one path)
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmodule, CUstream, CUstream_flags};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void softplus(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v > 20.0f ? v : log1pf(expf(v));
    }
}
"#;

pub struct Activation {
    module: CUmodule,
    func: CUfunction,
    stream: CUstream,
}

impl Activation {
    pub fn new() -> Result<Self, Box<dyn Error>> {
        let ptx = compile_ptx(SRC)?;
        let image = CString::new(ptx.to_src())?;
        let name = CString::new("softplus")?;
        let mut module: CUmodule = ptr::null_mut();
        let mut func: CUfunction = ptr::null_mut();
        let mut stream: CUstream = ptr::null_mut();
        unsafe {
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut func, module, name.as_ptr()).result()?;
            sys::cuStreamCreate(&mut stream, CUstream_flags::CU_STREAM_DEFAULT as u32).result()?;
        }
        Ok(Self { module, func, stream })
    }

    /// Applies softplus to `x`. With `warm_up`, only makes sure the kernel is loaded and runs once.
    pub fn apply(&self, x: &[f32], warm_up: bool) -> Result<Option<Vec<f32>>, DriverError> {
        let n = x.len();
        let bytes = std::mem::size_of_val(x);
        unsafe {
            let mut d_x: CUdeviceptr = 0;
            let mut d_y: CUdeviceptr = 0;
            let a1 = sys::cuMemAlloc_v2(&mut d_x, bytes);
            let a2 = sys::cuMemAlloc_v2(&mut d_y, bytes);
            if let Err(e) = a1.result().and(a2.result()) {
                let _ = sys::cuMemFree_v2(d_x);
                let _ = sys::cuMemFree_v2(d_y);
                return Err(e);
            }
            let mut status = sys::cuMemcpyHtoD_v2(d_x, x.as_ptr().cast(), bytes).result();
            if status.is_ok() {
                let (mut p_x, mut p_y, mut n_i) = (d_x, d_y, n as i32);
                let mut args: [*mut c_void; 3] =
                    [(&raw mut p_x).cast(), (&raw mut p_y).cast(), (&raw mut n_i).cast()];
                status = sys::cuLaunchKernel(
                    self.func,
                    n.div_ceil(256) as u32,
                    1,
                    1,
                    256,
                    1,
                    1,
                    0,
                    self.stream,
                    args.as_mut_ptr(),
                    ptr::null_mut(),
                )
                .result();
            }

            if warm_up {
                let _ = sys::cuMemFree_v2(d_x); // EXPECT: relies_on_implicit_sync
                let _ = sys::cuMemFree_v2(d_y);
                return status.map(|_| None);
            }

            let synced = sys::cuStreamSynchronize(self.stream).result();
            let mut y = vec![0.0f32; n];
            if status.is_ok() && synced.is_ok() {
                status = sys::cuMemcpyDtoH_v2(y.as_mut_ptr().cast(), d_y, bytes).result();
            }
            let _ = sys::cuMemFree_v2(d_x);
            let _ = sys::cuMemFree_v2(d_y);
            status?;
            synced?;
            Ok(Some(y))
        }
    }
}

impl Drop for Activation {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamDestroy_v2(self.stream);
            let _ = sys::cuModuleUnload(self.module);
        }
    }
}

pub fn run(x: &[f32]) -> Result<Vec<f32>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let act = Activation::new()?;
    act.apply(&x[..x.len().min(1024)], true)?;
    Ok(act.apply(x, false)?.unwrap_or_default())
}
