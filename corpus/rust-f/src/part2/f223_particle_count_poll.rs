//! case: particle emitter reads back the live-particle count into pinned memory and keeps the render thread busy with CPU work, polling cuStreamQuery until the stream reports completion before reading the count
//! expect: none
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const EMIT_SRC: &str = r#"
extern "C" __global__ void age_particles(float4* p, unsigned int n, float dt, unsigned int* alive) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = p[i];
    v.w -= dt;
    p[i] = v;
    if (v.w > 0.f) atomicAdd(alive, 1u);
}
"#;

pub struct Emitter {
    stream: sys::CUstream,
    age: sys::CUfunction,
    d_particles: sys::CUdeviceptr,
    d_alive: sys::CUdeviceptr,
    h_alive: *mut u32,
    n: u32,
}

impl Emitter {
    pub fn new(n: u32) -> Res<Self> {
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let image = CString::new(cudarc::nvrtc::compile_ptx(EMIT_SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let age = unsafe { drv::module::get_function(module, CString::new("age_particles")?) }?;
        let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
        let mut d_particles = 0;
        let mut d_alive = 0;
        let mut h_alive: *mut c_void = std::ptr::null_mut();
        unsafe {
            sys::cuMemAlloc_v2(&mut d_particles, n as usize * 16).result()?;
            sys::cuMemAlloc_v2(&mut d_alive, 4).result()?;
            sys::cuMemAllocHost_v2(&mut h_alive, 4).result()?;
            sys::cuMemsetD8Async(d_particles, 0, n as usize * 16, stream).result()?;
        }
        Ok(Emitter { stream, age, d_particles, d_alive, h_alive: h_alive.cast(), n })
    }

    /// Ages every particle and returns how many are still alive; `cpu_work` runs meanwhile.
    pub fn tick(&mut self, dt: f32, mut cpu_work: impl FnMut()) -> Res<u32> {
        let (mut p, mut n, mut d, mut alive) = (self.d_particles, self.n, dt, self.d_alive);
        let mut params: [*mut c_void; 4] = [
            (&mut p as *mut u64).cast(),
            (&mut n as *mut u32).cast(),
            (&mut d as *mut f32).cast(),
            (&mut alive as *mut u64).cast(),
        ];
        unsafe {
            sys::cuMemsetD32Async(self.d_alive, 0, 1, self.stream).result()?;
            sys::cuLaunchKernel(self.age, n.div_ceil(256), 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), std::ptr::null_mut())
                .result()?;
            sys::cuMemcpyDtoHAsync_v2(self.h_alive.cast(), self.d_alive, 4, self.stream).result()?;
        }
        loop {
            match unsafe { sys::cuStreamQuery(self.stream) } {
                sys::CUresult::CUDA_SUCCESS => break,
                sys::CUresult::CUDA_ERROR_NOT_READY => cpu_work(),
                err => return Err(Box::new(drv::DriverError(err))),
            }
        }
        Ok(unsafe { self.h_alive.read() })
    }
}

impl Drop for Emitter {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFree_v2(self.d_particles);
            let _ = sys::cuMemFree_v2(self.d_alive);
            let _ = sys::cuMemFreeHost(self.h_alive.cast());
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
