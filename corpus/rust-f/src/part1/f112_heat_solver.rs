//! case: a heat solver keeps its small config struct in managed memory and writes it from the host only between time steps, after synchronizing the stream; the temperature field is plain device memory the host never dereferences (it comes back through a blocking copy after the synchronize)
//! expect: none

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const HEAT_SRC: &str = r#"
struct SolverConfig { float alpha; float dt; unsigned int width; unsigned int steps_done; };

extern "C" __global__ void heat_step(const float* t_in, float* t_out, SolverConfig* cfg)
{
    unsigned int w = cfg->width;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w) return;
    float left = i > 0 ? t_in[i - 1] : t_in[i];
    float right = i + 1 < w ? t_in[i + 1] : t_in[i];
    t_out[i] = t_in[i] + cfg->alpha * cfg->dt * (left - 2.0f * t_in[i] + right);
    if (i == 0) cfg->steps_done += 1;
}
"#;

#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct SolverConfig {
    alpha: f32,
    dt: f32,
    width: u32,
    steps_done: u32,
}

pub struct HeatSolver {
    ctx: Arc<CudaContext>,
    kernel: CudaFunction,
    stream: CUstream,
    config: *mut SolverConfig,
    field: [CUdeviceptr; 2],
    width: usize,
}

impl HeatSolver {
    pub fn new(width: usize, alpha: f32) -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(0)?;
        let kernel = ctx.load_module(compile_ptx(HEAT_SRC)?)?.load_function("heat_step")?;
        let mut stream: CUstream = null_mut();
        let mut managed: CUdeviceptr = 0;
        let mut field: [CUdeviceptr; 2] = [0; 2];
        unsafe {
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAllocManaged(
                &mut managed,
                std::mem::size_of::<SolverConfig>(),
                sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32,
            )
            .result()?;
            for f in field.iter_mut() {
                sys::cuMemAlloc_v2(f, 4 * width).result()?;
                sys::cuMemsetD32Async(*f, 20.0f32.to_bits(), width, stream).result()?;
            }
            sys::cuMemsetD32Async(field[0] + 4 * (width as u64 / 2), 500.0f32.to_bits(), 1, stream).result()?;
            sys::cuStreamSynchronize(stream).result()?;
        }
        let config = managed as *mut SolverConfig;
        unsafe { config.write(SolverConfig { alpha, dt: 0.1, width: width as u32, steps_done: 0 }) };
        Ok(Self { ctx, kernel, stream, config, field, width })
    }

    /// Runs `steps` steps, shrinking `dt` between them from the host.
    pub fn advance(&mut self, steps: usize) -> Result<u32, DriverError> {
        for s in 0..steps {
            unsafe {
                (*self.config).dt = 0.1 / (1.0 + s as f32 * 0.01);
                let mut t_in = self.field[s % 2];
                let mut t_out = self.field[(s + 1) % 2];
                let mut cfg = self.config as CUdeviceptr;
                let mut args = [
                    (&mut t_in) as *mut CUdeviceptr as *mut c_void,
                    (&mut t_out) as *mut CUdeviceptr as *mut c_void,
                    (&mut cfg) as *mut CUdeviceptr as *mut c_void,
                ];
                let blocks = (self.width as u32).div_ceil(256);
                sys::cuLaunchKernel(self.kernel.cu_function(), blocks, 1, 1, 256, 1, 1, 0, self.stream, args.as_mut_ptr(), null_mut())
                    .result()?;
                sys::cuStreamSynchronize(self.stream).result()?;
            }
        }
        Ok(unsafe { (*self.config).steps_done })
    }

    /// The current field, through a blocking copy once the solver's stream is idle.
    pub fn snapshot(&self, steps_done: u32) -> Result<Vec<f32>, DriverError> {
        let mut out = vec![0.0f32; self.width];
        unsafe {
            sys::cuStreamSynchronize(self.stream).result()?;
            let cur = self.field[steps_done as usize % 2];
            sys::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), cur, 4 * self.width).result()?;
        }
        Ok(out)
    }
}

impl Drop for HeatSolver {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFree_v2(self.config as CUdeviceptr);
            for f in self.field {
                let _ = sys::cuMemFree_v2(f);
            }
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut solver = HeatSolver::new(1 << 16, 0.4)?;
    let done = solver.advance(200)?;
    let t = solver.snapshot(done)?;
    println!("after {done} steps, centre {:.2}", t[t.len() / 2]);
    Ok(())
}
