//! case: particle-in-cell step with the particle pusher's parameters and diagnostics in managed memory attached to the pusher stream (cuStreamAttachMemAsync, CU_MEM_ATTACH_SINGLE, attach completed by a stream sync); the host updates and reads them while only the field-solve stream, which never touches them, is busy
//! expect: none

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const PIC_SRC: &str = r#"
struct PushParams { float qm; float dt; unsigned n; float e_scale; float kinetic; float max_speed; };

extern "C" __global__ void push_particles(float4* particles, const float* efield, unsigned ngrid,
                                          PushParams* prm) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= prm->n) return;
    float4 p = particles[i];              // x, v, unused, unused (1-D electrostatic)
    unsigned cell = min((unsigned)(p.x * ngrid), ngrid - 1);
    p.y += prm->qm * prm->e_scale * efield[cell] * prm->dt;
    p.x += p.y * prm->dt;
    p.x -= floorf(p.x);
    particles[i] = p;
    atomicAdd(&prm->kinetic, 0.5f * p.y * p.y);
}

extern "C" __global__ void relax_field(float* efield, const float* rho, unsigned ngrid, unsigned iters) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0 || i >= ngrid - 1) return;
    for (unsigned k = 0; k < iters; ++k) efield[i] = 0.5f * (efield[i - 1] + efield[i + 1]) - rho[i];
}
"#;

#[repr(C)]
pub struct PushParams {
    pub qm: f32,
    pub dt: f32,
    pub n: u32,
    pub e_scale: f32,
    pub kinetic: f32,
    pub max_speed: f32,
}

pub struct PicStep {
    push_stream: CUstream,
    field_stream: CUstream,
    module: sys::CUmodule,
    push: sys::CUfunction,
    relax: sys::CUfunction,
    params: CUdeviceptr,
    particles: CUdeviceptr,
    efield: [CUdeviceptr; 2],
    rho: CUdeviceptr,
    ngrid: u32,
}

impl PicStep {
    pub fn new(n: u32, ngrid: u32) -> Result<Self> {
        let mut dev = 0;
        let mut ctx = null_mut();
        let (mut push_stream, mut field_stream) = (null_mut(), null_mut());
        let (mut module, mut push, mut relax) = (null_mut(), null_mut(), null_mut());
        let ptx = cudarc::nvrtc::compile_ptx(PIC_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let (mut params, mut particles, mut e0, mut e1, mut rho) = (0, 0, 0, 0, 0);
        unsafe {
            sys::cuInit(0).result()?;
            sys::cuDeviceGet(&mut dev, 0).result()?;
            sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            sys::cuCtxSetCurrent(ctx).result()?;
            sys::cuStreamCreate(&mut push_stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuStreamCreate(&mut field_stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut push, module, c"push_particles".as_ptr()).result()?;
            sys::cuModuleGetFunction(&mut relax, module, c"relax_field".as_ptr()).result()?;
            sys::cuMemAlloc_v2(&mut particles, n as usize * 16).result()?;
            for e in [&mut e0, &mut e1, &mut rho] {
                sys::cuMemAlloc_v2(e, ngrid as usize * 4).result()?;
                sys::cuMemsetD32Async(*e, 0, ngrid as usize, field_stream).result()?;
            }
            sys::cuMemsetD32Async(particles, 0, 4 * n as usize, push_stream).result()?;
            sys::cuMemAllocManaged(&mut params, std::mem::size_of::<PushParams>(), sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32)
                .result()?;
            // Only the pusher stream uses the parameters: tie them to it.
            sys::cuStreamAttachMemAsync(push_stream, params, 0, sys::CUmemAttach_flags::CU_MEM_ATTACH_SINGLE as u32).result()?;
            sys::cuStreamSynchronize(push_stream).result()?;
            sys::cuStreamSynchronize(field_stream).result()?;
        }
        Ok(Self { push_stream, field_stream, module, push, relax, params, particles, efield: [e0, e1], rho, ngrid })
    }

    fn params_mut(&mut self) -> &mut PushParams {
        unsafe { &mut *(self.params as *mut PushParams) }
    }

    /// Field relaxation for the next step runs alongside this step's push.
    pub fn step(&mut self, k: usize, n: u32, dt: f32) -> Result<f32> {
        let ngrid = self.ngrid;
        let (mut next_e, mut rho, mut ng, mut iters) = (self.efield[(k + 1) % 2], self.rho, ngrid, 64u32);
        let mut relax_args: [*mut c_void; 4] = [
            (&mut next_e as *mut u64).cast(),
            (&mut rho as *mut u64).cast(),
            (&mut ng as *mut u32).cast(),
            (&mut iters as *mut u32).cast(),
        ];
        unsafe {
            sys::cuLaunchKernel(self.relax, ngrid.div_ceil(256), 1, 1, 256, 1, 1, 0, self.field_stream, relax_args.as_mut_ptr(), null_mut())
                .result()?;
        }

        // The pusher stream is idle here (synchronized below at the end of every step).
        let prm = self.params_mut();
        prm.qm = -1.0;
        prm.dt = dt;
        prm.n = n;
        prm.e_scale = 1.0;
        prm.kinetic = 0.0;

        let (mut parts, mut cur_e, mut p) = (self.particles, self.efield[k % 2], self.params);
        let mut push_args: [*mut c_void; 4] = [
            (&mut parts as *mut u64).cast(),
            (&mut cur_e as *mut u64).cast(),
            (&mut ng as *mut u32).cast(),
            (&mut p as *mut u64).cast(),
        ];
        unsafe {
            sys::cuLaunchKernel(self.push, n.div_ceil(256), 1, 1, 256, 1, 1, 0, self.push_stream, push_args.as_mut_ptr(), null_mut())
                .result()?;
            sys::cuStreamSynchronize(self.push_stream).result()?;
        }
        // The relaxation on the field stream may still be running.
        let kinetic = self.params_mut().kinetic;
        unsafe { sys::cuStreamSynchronize(self.field_stream).result()? };
        Ok(kinetic)
    }
}

impl Drop for PicStep {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.push_stream);
            let _ = sys::cuStreamSynchronize(self.field_stream);
            for d in [self.params, self.particles, self.efield[0], self.efield[1], self.rho] {
                let _ = sys::cuMemFree_v2(d);
            }
            let _ = sys::cuModuleUnload(self.module);
            let _ = sys::cuStreamDestroy_v2(self.push_stream);
            let _ = sys::cuStreamDestroy_v2(self.field_stream);
        }
    }
}
