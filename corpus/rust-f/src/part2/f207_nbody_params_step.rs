//! case: n-body integrator uploads a 48-byte parameter block from the stack with cuMemcpyHtoDAsync every step and edits it right after (pageable source staged before the call returns, small constant size); results read with a blocking copy after the stream is synchronized
//! expect: none
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StepParams {
    pub dt: f32,
    pub softening: f32,
    pub gravity: [f32; 3],
    pub damping: f32,
    pub n: u32,
    pub step: u32,
    pub bounds: [f32; 4],
}

const NBODY_SRC: &str = r#"
struct StepParams { float dt, softening, gravity[3], damping; unsigned int n, step; float bounds[4]; };
extern "C" __global__ void integrate(float4* pos, float4* vel, const StepParams* p) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p->n) return;
    float4 a = make_float4(p->gravity[0], p->gravity[1], p->gravity[2], 0.f);
    float4 xi = pos[i];
    for (unsigned int j = 0; j < p->n; ++j) {
        float4 xj = pos[j];
        float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
        float inv = rsqrtf(dx * dx + dy * dy + dz * dz + p->softening);
        float s = xj.w * inv * inv * inv;
        a.x += dx * s; a.y += dy * s; a.z += dz * s;
    }
    __syncthreads();
    float4 v = vel[i];
    v.x = (v.x + a.x * p->dt) * p->damping;
    v.y = (v.y + a.y * p->dt) * p->damping;
    v.z = (v.z + a.z * p->dt) * p->damping;
    vel[i] = v;
    pos[i] = make_float4(xi.x + v.x * p->dt, xi.y + v.y * p->dt, xi.z + v.z * p->dt, xi.w);
}
"#;

pub struct NBody {
    stream: sys::CUstream,
    func: sys::CUfunction,
    d_pos: sys::CUdeviceptr,
    d_vel: sys::CUdeviceptr,
    d_params: sys::CUdeviceptr,
    n: usize,
}

impl NBody {
    pub fn new(initial: &[[f32; 4]]) -> Res<Self> {
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let ptx = cudarc::nvrtc::compile_ptx(NBODY_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let func = unsafe { drv::module::get_function(module, CString::new("integrate")?) }?;
        let mut stream = std::ptr::null_mut();
        unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
        let n = initial.len();
        let bytes = n * 16;
        let d_pos = unsafe { drv::malloc_sync(bytes) }?;
        let d_vel = unsafe { drv::malloc_sync(bytes) }?;
        let d_params = unsafe { drv::malloc_sync(std::mem::size_of::<StepParams>()) }?;
        unsafe {
            drv::memcpy_htod_sync(d_pos, initial)?;
            drv::memset_d8_sync(d_vel, 0, bytes)?;
        }
        // Both ran on the legacy stream, which the simulation stream does not wait for.
        drv::ctx::synchronize()?;
        Ok(NBody { stream, func, d_pos, d_vel, d_params, n })
    }

    pub fn advance(&mut self, steps: u32, dt: f32) -> Res<Vec<[f32; 4]>> {
        let mut params = StepParams {
            dt,
            softening: 1e-3,
            gravity: [0.0, -9.81, 0.0],
            damping: 0.999,
            n: self.n as u32,
            step: 0,
            bounds: [-100.0, 100.0, -100.0, 100.0],
        };
        for step in 0..steps {
            params.step = step;
            unsafe {
                sys::cuMemcpyHtoDAsync_v2(
                    self.d_params,
                    (&params as *const StepParams).cast::<c_void>(),
                    std::mem::size_of::<StepParams>(),
                    self.stream,
                )
                .result()?;
            }
            // Adaptive step: the next upload takes the new value, this one was already staged.
            params.dt = (params.dt * 1.01).min(0.05);

            let (mut pos, mut vel, mut p) = (self.d_pos, self.d_vel, self.d_params);
            let mut args: [*mut c_void; 3] = [
                (&mut pos as *mut u64).cast(),
                (&mut vel as *mut u64).cast(),
                (&mut p as *mut u64).cast(),
            ];
            let blocks = (self.n as u32).div_ceil(128);
            unsafe { drv::launch_kernel(self.func, (blocks, 1, 1), (128, 1, 1), 0, self.stream, &mut args) }?;
        }
        unsafe { drv::stream::synchronize(self.stream) }?;
        let mut out = vec![[0f32; 4]; self.n];
        unsafe { drv::memcpy_dtoh_sync(&mut out, self.d_pos) }?;
        Ok(out)
    }
}

impl Drop for NBody {
    fn drop(&mut self) {
        unsafe {
            let _ = drv::stream::synchronize(self.stream);
            let _ = drv::free_sync(self.d_pos);
            let _ = drv::free_sync(self.d_vel);
            let _ = drv::free_sync(self.d_params);
            let _ = drv::stream::destroy(self.stream);
        }
    }
}
