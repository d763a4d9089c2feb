use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

use super::vmm::{map_rw, VmmBuffer};

const SPMV_SRC: &str = r#"
extern "C" __global__ void tridiag_apply(const float* x, float* y, float diag, float off, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = diag * x[i];
    if (i > 0) v += off * x[i - 1];
    if (i + 1 < n) v += off * x[i + 1];
    y[i] = v;
}

extern "C" __global__ void abs_sum(const float* y, float* out, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, fabsf(y[i]));
}
"#;

pub struct SpmvWorkspace {
    ctx: Arc<CudaContext>,
    apply: CudaFunction,
    abs_sum: CudaFunction,
    stream: CUstream,
    x: VmmBuffer,
    y: VmmBuffer,
    norm: VmmBuffer,
    host: *mut f32,
    n: u32,
}

impl SpmvWorkspace {
    pub fn new(ctx: &Arc<CudaContext>, n: u32) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(SPMV_SRC)?)?;
        let mut stream: CUstream = null_mut();
        let mut host: *mut c_void = null_mut();
        unsafe {
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAllocHost_v2(&mut host, 4).result()?;
        }
        let bytes = n as usize * 4;
        Ok(Self {
            ctx: ctx.clone(),
            apply: module.load_function("tridiag_apply")?,
            abs_sum: module.load_function("abs_sum")?,
            x: map_rw(ctx, bytes, stream)?,
            y: map_rw(ctx, bytes, stream)?,
            norm: map_rw(ctx, 4, stream)?,
            stream,
            host: host.cast(),
            n,
        })
    }

    fn launch(&self, f: &CudaFunction, args: &mut [*mut c_void]) -> Result<(), DriverError> {
        unsafe { sys::cuLaunchKernel(f.cu_function(), self.n.div_ceil(256), 1, 1, 256, 1, 1, 0, self.stream, args.as_mut_ptr(), null_mut()).result() }
    }

    /// ||A x||_1 for the tridiagonal A = tridiag(off, diag, off) and x = 1.
    pub fn tridiagonal_apply(&mut self, diag: f32, off: f32) -> Result<f32, DriverError> {
        unsafe {
            sys::cuMemsetD32Async(self.x.ptr(), 1.0f32.to_bits(), self.n as usize, self.stream).result()?;
            sys::cuMemsetD32Async(self.norm.ptr(), 0, 1, self.stream).result()?;
        }
        let (mut x, mut y, mut out): (CUdeviceptr, CUdeviceptr, CUdeviceptr) = (self.x.ptr(), self.y.ptr(), self.norm.ptr());
        let (mut d, mut o, mut n) = (diag, off, self.n);
        self.launch(&self.apply, &mut [
            (&mut x) as *mut CUdeviceptr as *mut c_void,
            (&mut y) as *mut CUdeviceptr as *mut c_void,
            (&mut d) as *mut f32 as *mut c_void,
            (&mut o) as *mut f32 as *mut c_void,
            (&mut n) as *mut u32 as *mut c_void,
        ])?;
        self.launch(&self.abs_sum, &mut [
            (&mut y) as *mut CUdeviceptr as *mut c_void,
            (&mut out) as *mut CUdeviceptr as *mut c_void,
            (&mut n) as *mut u32 as *mut c_void,
        ])?;
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(self.host.cast(), self.norm.ptr(), 4, self.stream).result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
            Ok(*self.host)
        }
    }
}

impl Drop for SpmvWorkspace {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFreeHost(self.host.cast());
        }
    }
}
