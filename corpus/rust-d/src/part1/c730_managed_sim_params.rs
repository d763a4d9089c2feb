//! case: a particle system (cudarc's runtime::sys) keeps its simulation parameters in managed memory (cudaMallocManaged, attach global); after the force kernel that reads them has been synchronized, it launches the integrate kernel, which does not use them, and updates the parameters for the next frame from the host while that kernel runs
//! expect: managed_concurrent_access=1

use std::ffi::{c_void, CString};
use std::mem::size_of;
use std::ptr::null_mut;

use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys::{self, cudaKernel_t, cudaStream_t, dim3};

const PARTICLES_CU: &str = r#"
struct SimParams { float gx, gy, gz, damping; };
extern "C" __global__ void apply_forces(float4* vel, int n, const SimParams* p, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = vel[i];
    v.x = (v.x + p->gx * dt) * p->damping;
    v.y = (v.y + p->gy * dt) * p->damping;
    v.z = (v.z + p->gz * dt) * p->damping;
    vel[i] = v;
}
extern "C" __global__ void integrate(float4* pos, const float4* vel, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    pos[i].x += vel[i].x * dt; pos[i].y += vel[i].y * dt; pos[i].z += vel[i].z * dt;
}
"#;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SimParams {
    pub gravity: [f32; 3],
    pub damping: f32,
}

pub struct Controls {
    pub gravity: [f32; 3],
    pub damping: f32,
}

pub struct ParticleSystem {
    stream: cudaStream_t,
    apply_forces: cudaKernel_t,
    integrate: cudaKernel_t,
    params: *mut SimParams, // managed
    pos: *mut c_void,
    vel: *mut c_void,
    n: i32,
}

fn kernel(lib: sys::cudaLibrary_t, name: &str) -> Result<cudaKernel_t, RuntimeError> {
    let mut k = null_mut();
    let name = CString::new(name).expect("kernel name");
    unsafe { sys::cudaLibraryGetKernel(&mut k, lib, name.as_ptr()).result()? };
    Ok(k)
}

impl ParticleSystem {
    pub fn new(pos: *mut c_void, vel: *mut c_void, n: i32) -> Result<Self, Box<dyn std::error::Error>> {
        let image = CString::new(compile_ptx(PARTICLES_CU)?.to_src())?;
        let (mut lib, mut stream, mut params) = (null_mut(), null_mut(), null_mut());
        unsafe {
            sys::cudaLibraryLoadData(&mut lib, image.as_ptr().cast(), null_mut(), null_mut(), 0, null_mut(), null_mut(), 0).result()?;
            sys::cudaStreamCreateWithFlags(&mut stream, sys::cudaStreamNonBlocking).result()?;
            sys::cudaMallocManaged(&mut params, size_of::<SimParams>(), sys::cudaMemAttachGlobal).result()?;
        }
        let params = params as *mut SimParams;
        unsafe { params.write(SimParams { gravity: [0.0, -9.81, 0.0], damping: 0.999 }) };
        Ok(Self { stream, apply_forces: kernel(lib, "apply_forces")?, integrate: kernel(lib, "integrate")?, params, pos, vel, n })
    }

    unsafe fn launch(&self, k: cudaKernel_t, args: &mut [*mut c_void]) -> Result<(), RuntimeError> {
        let grid = dim3 { x: (self.n as u32).div_ceil(256), y: 1, z: 1 };
        let block = dim3 { x: 256, y: 1, z: 1 };
        unsafe { sys::cudaLaunchKernel(k as *const c_void, grid, block, args.as_mut_ptr(), 0, self.stream).result() }
    }

    pub fn frame(&mut self, controls: &Controls, mut dt: f32) -> Result<(), RuntimeError> {
        let (mut pos, mut vel, mut n, mut params) = (self.pos, self.vel, self.n, self.params);
        unsafe {
            self.launch(self.apply_forces, &mut [
                (&mut vel as *mut *mut c_void).cast(),
                (&mut n as *mut i32).cast(),
                (&mut params as *mut *mut SimParams).cast(),
                (&mut dt as *mut f32).cast(),
            ])?;
            // Forces are done with the parameters once this returns.
            sys::cudaStreamSynchronize(self.stream).result()?;
            self.launch(self.integrate, &mut [
                (&mut pos as *mut *mut c_void).cast(),
                (&mut vel as *mut *mut c_void).cast(),
                (&mut n as *mut i32).cast(),
                (&mut dt as *mut f32).cast(),
            ])?;
        }
        // Overlap the host-side update of next frame's parameters with integration.
        unsafe { *self.params = SimParams { gravity: controls.gravity, damping: controls.damping } }; // EXPECT: managed_concurrent_access
        unsafe { sys::cudaStreamSynchronize(self.stream).result() }
    }
}

impl Drop for ParticleSystem {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cudaStreamSynchronize(self.stream);
            let _ = sys::cudaFree(self.params.cast());
            let _ = sys::cudaStreamDestroy(self.stream);
        }
    }
}
