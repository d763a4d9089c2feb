use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction};
use cudarc::nvrtc::compile_ptx;

use super::alloc::Allocation;

const JACOBI_SRC: &str = r#"
extern "C" __global__ void jacobi(const float* x, float* x_new, const float* b, float* residual, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float l = i > 0 ? x[i - 1] : 0.0f, r = i + 1 < n ? x[i + 1] : 0.0f;
    float v = 0.25f * (b[i] + l + r);
    x_new[i] = v;
    atomicAdd(residual, fabsf(v - x[i]));
}
"#;

pub struct Workspace {
    ctx: Arc<CudaContext>,
    jacobi: CudaFunction,
    stream: CUstream,
    n: usize,
    x: [Allocation; 2],
    rhs: Allocation,
    residual: Allocation,
    rhs_stage: Allocation,
    log: Allocation,
}

impl Workspace {
    pub fn new(ctx: &Arc<CudaContext>, n: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let jacobi = ctx.load_module(compile_ptx(JACOBI_SRC)?)?.load_function("jacobi")?;
        let mut stream: CUstream = null_mut();
        unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()? };
        let ws = Self {
            ctx: ctx.clone(),
            jacobi,
            stream,
            n,
            x: [Allocation::device(4 * n)?, Allocation::device(4 * n)?],
            rhs: Allocation::device(4 * n)?,
            residual: Allocation::managed(4)?,
            rhs_stage: Allocation::pinned(4 * n)?,
            log: Allocation::heap(4096).ok_or("out of host memory")?,
        };
        let stage = unsafe { std::slice::from_raw_parts_mut(ws.rhs_stage.host_ptr().unwrap() as *mut f32, n) };
        stage.iter_mut().enumerate().for_each(|(i, v)| *v = ((i % 7) as f32) - 3.0);
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(ws.rhs.device_ptr().unwrap(), ws.rhs_stage.host_ptr().unwrap(), 4 * n, stream).result()?;
            for x in &ws.x {
                sys::cuMemsetD32Async(x.device_ptr().unwrap(), 0, n, stream).result()?;
            }
            sys::cuStreamSynchronize(stream).result()?;
        }
        Ok(ws)
    }

    pub fn jacobi_sweeps(&mut self, sweeps: usize) -> Result<f32, Box<dyn std::error::Error>> {
        let residual = self.residual.host_ptr().unwrap() as *mut f32;
        let mut last = 0.0f32;
        for s in 0..sweeps {
            unsafe {
                *residual = 0.0;
                let mut x = self.x[s % 2].device_ptr().unwrap();
                let mut x_new = self.x[(s + 1) % 2].device_ptr().unwrap();
                let mut b = self.rhs.device_ptr().unwrap();
                let mut r = self.residual.device_ptr().unwrap();
                let mut n = self.n as u32;
                let mut args = [
                    (&mut x) as *mut CUdeviceptr as *mut c_void,
                    (&mut x_new) as *mut CUdeviceptr as *mut c_void,
                    (&mut b) as *mut CUdeviceptr as *mut c_void,
                    (&mut r) as *mut CUdeviceptr as *mut c_void,
                    (&mut n) as *mut u32 as *mut c_void,
                ];
                sys::cuLaunchKernel(self.jacobi.cu_function(), n.div_ceil(256), 1, 1, 256, 1, 1, 0, self.stream, args.as_mut_ptr(), null_mut())
                    .result()?;
                sys::cuStreamSynchronize(self.stream).result()?;
                last = *residual;
            }
            let line = format!("sweep {s}: {last:e}\n");
            let log = self.log.host_ptr().unwrap() as *mut u8;
            let len = line.len().min(self.log.bytes());
            unsafe { std::ptr::copy_nonoverlapping(line.as_ptr(), log, len) };
        }
        Ok(last)
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
