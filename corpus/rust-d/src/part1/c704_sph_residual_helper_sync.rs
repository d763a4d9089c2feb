//! case: an SPH solver (cudarc's driver::result layer) copies the density residual into pinned host memory every step and reads it every `check_every` steps, after a `drain` helper that synchronizes the stream
//! expect: none

use std::ffi::c_void;
use std::mem::size_of;
use std::sync::Arc;

use cudarc::driver::result::{self, stream::StreamKind, DriverError};
use cudarc::driver::sys::{CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction};
use cudarc::nvrtc::compile_ptx;

const SPH_CU: &str = r#"
extern "C" __global__ void density_pass(const float4* particles, float* density, int n,
                                        float h, float rest, float* residual) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = particles[i];
    float rho = 0.f;
    for (int j = 0; j < n; ++j) {
        float4 q = particles[j];
        float r2 = (p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y) + (p.z - q.z) * (p.z - q.z);
        float d = fmaxf(h * h - r2, 0.f);
        rho += q.w * d * d * d;
    }
    density[i] = rho;
    atomicAdd(residual, fabsf(rho - rest));
}
"#;

/// Stream handle owned by the solver; `drain` is the one place that waits for it.
struct SolverStream(CUstream);

impl SolverStream {
    fn new() -> Result<Self, DriverError> {
        Ok(Self(result::stream::create(StreamKind::NonBlocking)?))
    }

    fn drain(&self) -> Result<(), DriverError> {
        unsafe { result::stream::synchronize(self.0) }
    }
}

impl Drop for SolverStream {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::synchronize(self.0);
            let _ = result::stream::destroy(self.0);
        }
    }
}

pub struct SphSolver {
    _ctx: Arc<CudaContext>,
    density_pass: CudaFunction,
    stream: SolverStream,
    particles: CUdeviceptr,
    density: CUdeviceptr,
    residual_dev: CUdeviceptr,
    residual_host: *mut f32, // pinned, cuMemHostAlloc flags 0
    n: i32,
    h: f32,
    rest: f32,
}

impl SphSolver {
    pub fn new(ctx: Arc<CudaContext>, particles: CUdeviceptr, n: i32, h: f32, rest: f32) -> Result<Self, Box<dyn std::error::Error>> {
        let density_pass = ctx.load_module(compile_ptx(SPH_CU)?)?.load_function("density_pass")?;
        let stream = SolverStream::new()?;
        let (density, residual_dev, residual_host) = unsafe {
            (
                result::malloc_sync(n as usize * size_of::<f32>())?,
                result::malloc_sync(size_of::<f32>())?,
                result::malloc_host(size_of::<f32>(), 0)? as *mut f32,
            )
        };
        Ok(Self { _ctx: ctx, density_pass, stream, particles, density, residual_dev, residual_host, n, h, rest })
    }

    fn enqueue_step(&mut self) -> Result<(), DriverError> {
        let grid = (self.n as u32).div_ceil(128);
        unsafe {
            result::memset_d8_async(self.residual_dev, 0, size_of::<f32>(), self.stream.0)?;
            let mut params: Vec<*mut c_void> = vec![
                &mut self.particles as *mut CUdeviceptr as *mut c_void,
                &mut self.density as *mut CUdeviceptr as *mut c_void,
                &mut self.n as *mut i32 as *mut c_void,
                &mut self.h as *mut f32 as *mut c_void,
                &mut self.rest as *mut f32 as *mut c_void,
                &mut self.residual_dev as *mut CUdeviceptr as *mut c_void,
            ];
            result::launch_kernel(self.density_pass.cu_function(), (grid, 1, 1), (128, 1, 1), 0, self.stream.0, &mut params)?;
            let host = std::slice::from_raw_parts_mut(self.residual_host, 1);
            result::memcpy_dtoh_async(host, self.residual_dev, self.stream.0)?;
        }
        Ok(())
    }

    /// Runs until the residual drops under `tol`; returns the number of steps taken.
    pub fn solve(&mut self, max_steps: usize, check_every: usize, tol: f32) -> Result<usize, DriverError> {
        for step in 1..=max_steps {
            self.enqueue_step()?;
            if step % check_every != 0 {
                continue;
            }
            self.stream.drain()?;
            let residual = unsafe { self.residual_host.read() };
            if residual / (self.n as f32) < tol {
                return Ok(step);
            }
        }
        self.stream.drain()?;
        Ok(max_steps)
    }
}

impl Drop for SphSolver {
    fn drop(&mut self) {
        let _ = self.stream.drain();
        unsafe {
            let _ = result::free_host(self.residual_host.cast());
            let _ = result::free_sync(self.residual_dev);
            let _ = result::free_sync(self.density);
        }
    }
}
