//! case: an N-body step loop (raw driver API through cudarc's sys) copies each step's total energy into a pinned log with cuMemcpyDtoHAsync and checks it for divergence right away, before the stream is synchronized
//! expect: missing_sync=1

use std::ffi::c_void;
use std::mem::size_of;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction};
use cudarc::nvrtc::compile_ptx;

const NBODY_CU: &str = r#"
extern "C" __global__ void leapfrog(float4* pos, float4* vel, int n, float dt, double* energy) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i], v = vel[i];
    float3 a = make_float3(0.f, 0.f, 0.f);
    for (int j = 0; j < n; ++j) {
        float4 q = pos[j];
        float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
        float inv = rsqrtf(dx * dx + dy * dy + dz * dz + 1e-4f);
        float s = q.w * inv * inv * inv;
        a.x += dx * s; a.y += dy * s; a.z += dz * s;
    }
    v.x += a.x * dt; v.y += a.y * dt; v.z += a.z * dt;
    p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt;
    pos[i] = p; vel[i] = v;
    atomicAdd(energy, 0.5 * p.w * (v.x * v.x + v.y * v.y + v.z * v.z));
}
"#;

#[derive(Debug)]
pub enum StepError {
    Cuda(DriverError),
    Diverged { step: usize, energy: f64 },
}

impl From<DriverError> for StepError {
    fn from(e: DriverError) -> Self {
        StepError::Cuda(e)
    }
}

pub struct NBody {
    _ctx: Arc<CudaContext>,
    leapfrog: CudaFunction,
    stream: CUstream,
    pos: CUdeviceptr,
    vel: CUdeviceptr,
    energy_dev: CUdeviceptr,
    energy_log: *mut f64, // pinned, one slot per step
    capacity: usize,
    n: i32,
}

impl NBody {
    pub fn new(ctx: Arc<CudaContext>, pos: CUdeviceptr, vel: CUdeviceptr, n: i32, steps: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let leapfrog = ctx.load_module(compile_ptx(NBODY_CU)?)?.load_function("leapfrog")?;
        let mut stream: CUstream = ptr::null_mut();
        let mut energy_dev: CUdeviceptr = 0;
        let mut log: *mut c_void = ptr::null_mut();
        unsafe {
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAlloc_v2(&mut energy_dev, size_of::<f64>()).result()?;
            sys::cuMemAllocHost_v2(&mut log, steps * size_of::<f64>()).result()?;
        }
        Ok(Self { _ctx: ctx, leapfrog, stream, pos, vel, energy_dev, energy_log: log.cast(), capacity: steps, n })
    }

    pub fn run(&mut self, steps: usize, dt: f32, max_energy: f64) -> Result<Vec<f64>, StepError> {
        let steps = steps.min(self.capacity);
        let block = 256u32;
        let grid = (self.n as u32).div_ceil(block);
        for step in 0..steps {
            unsafe {
                sys::cuMemsetD8Async(self.energy_dev, 0, size_of::<f64>(), self.stream).result()?;
                let mut params: [*mut c_void; 5] = [
                    &mut self.pos as *mut _ as *mut c_void,
                    &mut self.vel as *mut _ as *mut c_void,
                    &mut self.n as *mut _ as *mut c_void,
                    &dt as *const f32 as *mut c_void,
                    &mut self.energy_dev as *mut _ as *mut c_void,
                ];
                result::launch_kernel(self.leapfrog.cu_function(), (grid, 1, 1), (block, 1, 1), 0, self.stream, &mut params)?;
                sys::cuMemcpyDtoHAsync_v2(
                    self.energy_log.add(step).cast(),
                    self.energy_dev,
                    size_of::<f64>(),
                    self.stream,
                )
                .result()?;
            }
            // Bail out early on a blow-up instead of simulating garbage for the rest of the run.
            let energy = unsafe { *self.energy_log.add(step) }; // EXPECT: missing_sync
            if !energy.is_finite() || energy > max_energy {
                return Err(StepError::Diverged { step, energy });
            }
        }
        unsafe { result::stream::synchronize(self.stream)? };
        let log = unsafe { std::slice::from_raw_parts(self.energy_log, steps) };
        Ok(log.to_vec())
    }
}

impl Drop for NBody {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFreeHost(self.energy_log.cast());
            let _ = sys::cuMemFree_v2(self.energy_dev);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
