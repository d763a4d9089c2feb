//! case: SPH fluid solver uploads particle positions from a Vec with cuMemcpyHtoDAsync and, in its debug dump after the step, makes a slice straight from the cuMemAlloc device pointer and prints it
//! expect: pageable_async_copy=1, host_deref_device_ptr=1
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const SPH_SRC: &str = r#"
extern "C" __global__ void density(const float4* pos, float* rho, unsigned int n, float h) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    float sum = 0.f, h2 = h * h;
    for (unsigned int j = 0; j < n; ++j) {
        float4 pj = pos[j];
        float dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < h2) { float d = h2 - r2; sum += pj.w * d * d * d; }
    }
    rho[i] = sum * 315.f / (64.f * 3.14159265f * powf(h, 9.f));
}
"#;

pub struct SphStep {
    pub debug: bool,
    stream: sys::CUstream,
    density: sys::CUfunction,
}

impl SphStep {
    pub fn new(debug: bool) -> Res<Self> {
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let image = CString::new(cudarc::nvrtc::compile_ptx(SPH_SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let density = unsafe { drv::module::get_function(module, CString::new("density")?) }?;
        let mut stream = std::ptr::null_mut();
        unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
        Ok(SphStep { debug, stream, density })
    }

    /// Computes particle densities; `particles` holds (x, y, z, mass).
    pub fn densities(&self, particles: &[[f32; 4]], h: f32) -> Res<Vec<f32>> {
        let n = particles.len();
        let (mut d_pos, mut d_rho) = (0, 0);
        unsafe {
            sys::cuMemAlloc_v2(&mut d_pos, n * 16).result()?;
            sys::cuMemAlloc_v2(&mut d_rho, n * 4).result()?;
        }
        let flat: Vec<f32> = particles.iter().flatten().copied().collect();
        unsafe { sys::cuMemcpyHtoDAsync_v2(d_pos, flat.as_ptr().cast(), flat.len() * 4, self.stream) }.result()?; // EXPECT: pageable_async_copy

        let (mut p, mut r, mut nn, mut hh) = (d_pos, d_rho, n as u32, h);
        let mut params: [*mut c_void; 4] = [
            (&mut p as *mut u64).cast(),
            (&mut r as *mut u64).cast(),
            (&mut nn as *mut u32).cast(),
            (&mut hh as *mut f32).cast(),
        ];
        unsafe {
            sys::cuLaunchKernel(self.density, nn.div_ceil(128), 1, 1, 128, 1, 1, 0, self.stream, params.as_mut_ptr(), std::ptr::null_mut())
                .result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
        }

        if self.debug {
            let head = unsafe { std::slice::from_raw_parts(d_rho as *const f32, n.min(8)) }; // EXPECT: host_deref_device_ptr
            eprintln!("rho[0..8] = {head:?}");
        }

        let mut rho = vec![0f32; n];
        unsafe {
            sys::cuMemcpyDtoH_v2(rho.as_mut_ptr().cast(), d_rho, n * 4).result()?;
            sys::cuMemFree_v2(d_pos).result()?;
            sys::cuMemFree_v2(d_rho).result()?;
        }
        Ok(rho)
    }
}
