//! The force and integration kernels (NVRTC) and their raw `cuLaunchKernel` wrappers.

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};

use super::buffers::DeviceArray;

pub const MD_KERNELS: &str = r#"
extern "C" __global__ void lj_forces(const float* pos, float* force, unsigned n, float box_len) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xi = pos[3*i], yi = pos[3*i+1], zi = pos[3*i+2];
    float fx = 0.f, fy = 0.f, fz = 0.f;
    for (unsigned j = 0; j < n; ++j) {
        if (j == i) continue;
        float dx = xi - pos[3*j], dy = yi - pos[3*j+1], dz = zi - pos[3*j+2];
        dx -= box_len * rintf(dx / box_len);
        dy -= box_len * rintf(dy / box_len);
        dz -= box_len * rintf(dz / box_len);
        float r2 = dx*dx + dy*dy + dz*dz;
        if (r2 > 6.25f) continue;
        float inv6 = 1.f / (r2*r2*r2);
        float f = 24.f * inv6 * (2.f*inv6 - 1.f) / r2;
        fx += f*dx; fy += f*dy; fz += f*dz;
    }
    force[3*i] = fx; force[3*i+1] = fy; force[3*i+2] = fz;
}

extern "C" __global__ void verlet_step(float* pos, float* vel, const float* force,
                                       float dt, unsigned n, float* kinetic) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float ke = 0.f;
    if (i < n) {
        for (int d = 0; d < 3; ++d) {
            float v = vel[3*i+d] + dt * force[3*i+d];
            vel[3*i+d] = v;
            pos[3*i+d] += dt * v;
            ke += 0.5f * v * v;
        }
    }
    for (int off = 16; off > 0; off >>= 1) ke += __shfl_down_sync(0xffffffffu, ke, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(kinetic, ke);
}

extern "C" __global__ void rescale_vel(float* vel, float lambda, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 3*n) vel[i] *= lambda;
}
"#;

/// Berendsen-style velocity rescaling towards a target temperature.
pub struct Thermostat {
    pub target_t: f32,
    pub tau_steps: f32,
}

impl Thermostat {
    pub fn rescale_factor(&self, kinetic: f32, n: u32) -> f32 {
        let t_now = 2.0 * kinetic / (3.0 * n as f32);
        if t_now <= 0.0 {
            return 1.0;
        }
        (1.0 + (self.target_t / t_now - 1.0) / self.tau_steps).sqrt()
    }
}

pub struct StepKernel {
    module: sys::CUmodule,
    forces: sys::CUfunction,
    step: sys::CUfunction,
    rescale: sys::CUfunction,
}

fn function(module: sys::CUmodule, name: &str) -> Result<sys::CUfunction, Box<dyn Error>> {
    let cname = CString::new(name)?;
    let mut f = null_mut();
    unsafe { sys::cuModuleGetFunction(&mut f, module, cname.as_ptr()).result()? };
    Ok(f)
}

impl StepKernel {
    pub fn load() -> Result<Self, Box<dyn Error>> {
        let ptx = cudarc::nvrtc::compile_ptx(MD_KERNELS)?;
        let image = CString::new(ptx.to_src())?;
        let mut module = null_mut();
        unsafe { sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()? };
        Ok(Self {
            module,
            forces: function(module, "lj_forces")?,
            step: function(module, "verlet_step")?,
            rescale: function(module, "rescale_vel")?,
        })
    }

    fn grid(n: u32) -> u32 {
        n.div_ceil(256).max(1)
    }

    /// One step: forces from the current positions, then kick-drift; the kinetic energy of
    /// the new velocities is accumulated into `kinetic[0]`.
    #[allow(clippy::too_many_arguments)]
    pub fn launch(
        &self,
        stream: CUstream,
        pos: &DeviceArray,
        vel: &DeviceArray,
        force: &DeviceArray,
        kinetic: &DeviceArray,
        dt: f32,
        n: u32,
        box_len: f32,
    ) -> Result<(), Box<dyn Error>> {
        let (mut p, mut v, mut f, mut k): (CUdeviceptr, CUdeviceptr, CUdeviceptr, CUdeviceptr) =
            (pos.ptr, vel.ptr, force.ptr, kinetic.ptr);
        let (mut n_, mut dt_, mut box_) = (n, dt, box_len);
        let mut force_args: [*mut c_void; 4] = [
            (&mut p as *mut CUdeviceptr).cast(),
            (&mut f as *mut CUdeviceptr).cast(),
            (&mut n_ as *mut u32).cast(),
            (&mut box_ as *mut f32).cast(),
        ];
        let mut step_args: [*mut c_void; 6] = [
            (&mut p as *mut CUdeviceptr).cast(),
            (&mut v as *mut CUdeviceptr).cast(),
            (&mut f as *mut CUdeviceptr).cast(),
            (&mut dt_ as *mut f32).cast(),
            (&mut n_ as *mut u32).cast(),
            (&mut k as *mut CUdeviceptr).cast(),
        ];
        unsafe {
            sys::cuLaunchKernel(self.forces, Self::grid(n), 1, 1, 256, 1, 1, 0, stream, force_args.as_mut_ptr(), null_mut())
                .result()?;
            sys::cuLaunchKernel(self.step, Self::grid(n), 1, 1, 256, 1, 1, 0, stream, step_args.as_mut_ptr(), null_mut())
                .result()?;
        }
        Ok(())
    }

    pub fn rescale(&self, stream: CUstream, vel: &DeviceArray, lambda: f32, n: u32) -> Result<(), Box<dyn Error>> {
        let mut v = vel.ptr;
        let (mut l, mut n_) = (lambda, n);
        let mut args: [*mut c_void; 3] = [
            (&mut v as *mut CUdeviceptr).cast(),
            (&mut l as *mut f32).cast(),
            (&mut n_ as *mut u32).cast(),
        ];
        unsafe {
            sys::cuLaunchKernel(self.rescale, Self::grid(3 * n), 1, 1, 256, 1, 1, 0, stream, args.as_mut_ptr(), null_mut())
                .result()?;
        }
        Ok(())
    }
}

impl Drop for StepKernel {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuModuleUnload(self.module);
        }
    }
}
