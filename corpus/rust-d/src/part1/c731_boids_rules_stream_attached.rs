//! case: a boids simulation keeps its steering rules in managed memory attached to its own rules stream (cuStreamAttachMemAsync, CU_MEM_ATTACH_SINGLE); the host edits the rules while the advect kernel runs on the main stream, after the rules stream (the only one whose kernels read them) was synchronized
//! expect: none

use std::ffi::c_void;
use std::mem::size_of;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction};
use cudarc::nvrtc::compile_ptx;

const BOIDS_CU: &str = r#"
struct Rules { float cohesion, alignment, separation, max_speed; };
extern "C" __global__ void steer(const float2* pos, float2* vel, int n, const Rules* r) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 c = make_float2(0.f, 0.f), a = make_float2(0.f, 0.f), s = make_float2(0.f, 0.f);
    for (int j = 0; j < n; ++j) {
        float dx = pos[j].x - pos[i].x, dy = pos[j].y - pos[i].y, d2 = dx * dx + dy * dy + 1e-6f;
        c.x += dx; c.y += dy; a.x += vel[j].x; a.y += vel[j].y; s.x -= dx / d2; s.y -= dy / d2;
    }
    float2 v = vel[i];
    v.x += (r->cohesion * c.x + r->alignment * a.x + r->separation * s.x) / n;
    v.y += (r->cohesion * c.y + r->alignment * a.y + r->separation * s.y) / n;
    float sp = sqrtf(v.x * v.x + v.y * v.y);
    if (sp > r->max_speed) { v.x *= r->max_speed / sp; v.y *= r->max_speed / sp; }
    vel[i] = v;
}
extern "C" __global__ void advect(float2* pos, const float2* vel, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { pos[i].x += vel[i].x * dt; pos[i].y += vel[i].y * dt; }
}
"#;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    pub cohesion: f32,
    pub alignment: f32,
    pub separation: f32,
    pub max_speed: f32,
}

pub struct Flock {
    _ctx: Arc<CudaContext>,
    steer: CudaFunction,
    advect: CudaFunction,
    main: CUstream,
    rules_stream: CUstream,
    rules: *mut Rules, // managed, attached to `rules_stream` only
    pos: CUdeviceptr,
    vel: CUdeviceptr,
    n: i32,
}

impl Flock {
    pub fn new(ctx: Arc<CudaContext>, pos: CUdeviceptr, vel: CUdeviceptr, n: i32) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(BOIDS_CU)?)?;
        let (steer, advect) = (module.load_function("steer")?, module.load_function("advect")?);
        let (mut main, mut rules_stream): (CUstream, CUstream) = (null_mut(), null_mut());
        let mut rules: CUdeviceptr = 0;
        unsafe {
            sys::cuStreamCreate(&mut main, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuStreamCreate(&mut rules_stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAllocManaged(&mut rules, size_of::<Rules>(), sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32).result()?;
            sys::cuStreamAttachMemAsync(rules_stream, rules, 0, sys::CUmemAttach_flags::CU_MEM_ATTACH_SINGLE as u32).result()?;
            sys::cuStreamSynchronize(rules_stream).result()?;
        }
        let rules = rules as *mut Rules;
        unsafe { rules.write(Rules { cohesion: 0.01, alignment: 0.05, separation: 0.1, max_speed: 2.0 }) };
        Ok(Self { _ctx: ctx, steer, advect, main, rules_stream, rules, pos, vel, n })
    }

    pub fn step(&mut self, dt: f32, edit: Option<&dyn Fn(&mut Rules)>) -> Result<(), DriverError> {
        let grid = ((self.n as u32).div_ceil(128), 1, 1);
        let (mut pos, mut vel, mut n, mut dt, mut rules) = (self.pos, self.vel, self.n, dt, self.rules as CUdeviceptr);
        unsafe {
            let mut steer_args: [*mut c_void; 4] = [
                (&mut pos as *mut CUdeviceptr).cast(),
                (&mut vel as *mut CUdeviceptr).cast(),
                (&mut n as *mut i32).cast(),
                (&mut rules as *mut CUdeviceptr).cast(),
            ];
            result::launch_kernel(self.steer.cu_function(), grid, (128, 1, 1), 0, self.rules_stream, &mut steer_args)?;
            result::stream::synchronize(self.rules_stream)?;
            let mut advect_args: [*mut c_void; 4] = [
                (&mut pos as *mut CUdeviceptr).cast(),
                (&mut vel as *mut CUdeviceptr).cast(),
                (&mut n as *mut i32).cast(),
                (&mut dt as *mut f32).cast(),
            ];
            result::launch_kernel(self.advect.cu_function(), grid, (128, 1, 1), 0, self.main, &mut advect_args)?;
        }
        // The rules belong to the idle rules stream: the host may touch them while `advect` runs.
        if let Some(edit) = edit {
            edit(unsafe { &mut *self.rules });
        }
        unsafe { result::stream::synchronize(self.main) }
    }
}

impl Drop for Flock {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.main);
            let _ = sys::cuStreamSynchronize(self.rules_stream);
            let _ = sys::cuMemFree_v2(self.rules as CUdeviceptr);
            let _ = sys::cuStreamDestroy_v2(self.rules_stream);
            let _ = sys::cuStreamDestroy_v2(self.main);
        }
    }
}
