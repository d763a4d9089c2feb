//! case: a Jacobi solver keeps its progress record (iteration, last residual) in `cuMemAllocManaged` memory so a device-side monitor could read it, and the host updates it right after launching the sweep kernel, which does not use it: on devices without concurrent managed access that host write faults while the kernel runs
//! expect: managed_concurrent_access=1

use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const JACOBI_SRC: &str = r#"
extern "C" __global__ void jacobi_sweep(const float* x, float* x_new, const float* b, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0 || i >= n - 1) return;
    x_new[i] = 0.5f * (x[i - 1] + x[i + 1] + b[i]);
}
"#;

#[repr(C)]
pub struct Progress {
    pub iteration: u32,
    pub residual: f32,
}

pub struct Solver {
    stream: Arc<CudaStream>,
    sweep: CudaFunction,
    x: CudaSlice<f32>,
    x_new: CudaSlice<f32>,
    b: CudaSlice<f32>,
    progress: *mut Progress, // managed
}

impl Solver {
    pub fn new(ctx: &Arc<CudaContext>, n: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let mut managed: CUdeviceptr = 0;
        unsafe {
            sys::cuMemAllocManaged(&mut managed, std::mem::size_of::<Progress>(), sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32)
                .result()?;
        }
        Ok(Self {
            sweep: ctx.load_module(compile_ptx(JACOBI_SRC)?)?.load_function("jacobi_sweep")?,
            x: stream.alloc_zeros::<f32>(n)?,
            x_new: stream.alloc_zeros::<f32>(n)?,
            b: stream.alloc_zeros::<f32>(n)?,
            progress: managed as *mut Progress,
            stream,
        })
    }

    pub fn iterate(&mut self, iters: u32, residual_estimate: impl Fn(u32) -> f32) -> Result<(), DriverError> {
        let n = self.x.len() as u32;
        for it in 0..iters {
            let mut launch = self.stream.launch_builder(&self.sweep);
            launch.arg(&self.x).arg(&mut self.x_new).arg(&self.b).arg(&n);
            unsafe { launch.launch(LaunchConfig::for_num_elems(n)) }?;
            std::mem::swap(&mut self.x, &mut self.x_new);

            // publish progress for the dashboard while the sweep runs
            let record = Progress { iteration: it + 1, residual: residual_estimate(it) };
            unsafe { self.progress.write(record) }; // EXPECT: managed_concurrent_access
        }
        self.stream.synchronize()
    }
}

impl Drop for Solver {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe { sys::cuMemFree_v2(self.progress as CUdeviceptr) };
    }
}
