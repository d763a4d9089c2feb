use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys;

use super::geometry::{rasterize, Obstacle};
use super::{ck, LbmResult};

const LBM_SRC: &str = r#"
extern "C" __global__ void collide_stream(const float* f_in, float* f_out, const unsigned char* solid, int nx, int ny, float omega) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= nx || y >= ny) return;
    /* BGK collision and pull streaming, bounce-back on solid nodes (body elided) */
    for (int q = 0; q < 9; ++q) f_out[q * nx * ny + y * nx + x] = solid[y * nx + x] ? f_in[q * nx * ny + y * nx + x] : f_in[q * nx * ny + y * nx + x] * (1.f - omega) + omega / 9.f;
}
extern "C" __global__ void density(const float* f, float* rho, int cells) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cells) return;
    float s = 0.f;
    for (int q = 0; q < 9; ++q) s += f[q * cells + i];
    rho[i] = s;
}
"#;

pub struct LbmSolver {
    pub(super) nx: usize,
    pub(super) ny: usize,
    pub(super) stream: sys::CUstream,
    pub(super) module: sys::CUmodule,
    pub(super) step_fn: sys::CUfunction,
    pub(super) rho_fn: sys::CUfunction,
    pub(super) f_a: sys::CUdeviceptr,
    pub(super) f_b: sys::CUdeviceptr,
    pub(super) solid: sys::CUdeviceptr,
    mask: Box<[u8]>,
    omega: f32,
}

impl LbmSolver {
    pub fn new(nx: usize, ny: usize, obstacles: &[Obstacle]) -> LbmResult<Self> {
        let ptx = cudarc::nvrtc::compile_ptx(LBM_SRC).expect("lbm kernels compile");
        let image = CString::new(ptx.to_src()).unwrap();
        let cells = nx * ny;
        let mut s = LbmSolver {
            nx,
            ny,
            stream: null_mut(),
            module: null_mut(),
            step_fn: null_mut(),
            rho_fn: null_mut(),
            f_a: 0,
            f_b: 0,
            solid: 0,
            mask: rasterize(nx, ny, obstacles),
            omega: 1.0 / 0.6,
        };
        unsafe {
            ck(sys::cuStreamCreate(&mut s.stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32))?;
            ck(sys::cuModuleLoadData(&mut s.module, image.as_ptr().cast()))?;
            ck(sys::cuModuleGetFunction(&mut s.step_fn, s.module, c"collide_stream".as_ptr()))?;
            ck(sys::cuModuleGetFunction(&mut s.rho_fn, s.module, c"density".as_ptr()))?;
            ck(sys::cuMemAlloc_v2(&mut s.f_a, 9 * cells * 4))?;
            ck(sys::cuMemAlloc_v2(&mut s.f_b, 9 * cells * 4))?;
            ck(sys::cuMemAlloc_v2(&mut s.solid, cells))?;
            ck(sys::cuMemsetD32Async(s.f_a, (1.0f32 / 9.0).to_bits(), 9 * cells, s.stream))?;
            ck(sys::cuMemcpyHtoDAsync_v2(s.solid, s.mask.as_ptr() as *const c_void, cells, s.stream))?; // EXPECT: pageable_async_copy
            ck(sys::cuStreamSynchronize(s.stream))?;
        }
        Ok(s)
    }

    pub fn step(&mut self) -> LbmResult<()> {
        let (mut nx, mut ny, mut omega) = (self.nx as i32, self.ny as i32, self.omega);
        let mut params: [*mut c_void; 6] = [
            (&mut self.f_a) as *mut _ as *mut c_void,
            (&mut self.f_b) as *mut _ as *mut c_void,
            (&mut self.solid) as *mut _ as *mut c_void,
            (&mut nx) as *mut i32 as *mut c_void,
            (&mut ny) as *mut i32 as *mut c_void,
            (&mut omega) as *mut f32 as *mut c_void,
        ];
        unsafe {
            ck(sys::cuLaunchKernel(self.step_fn, (self.nx as u32).div_ceil(128), self.ny as u32, 1, 128, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut()))?;
        }
        std::mem::swap(&mut self.f_a, &mut self.f_b);
        Ok(())
    }

    pub fn mean_density(&mut self) -> LbmResult<f64> {
        let cells = self.nx * self.ny;
        let mut rho_host = vec![0f32; cells];
        let mut rho_dev: sys::CUdeviceptr = 0;
        let mut n = cells as i32;
        unsafe {
            ck(sys::cuMemAlloc_v2(&mut rho_dev, cells * 4))?;
            let mut params: [*mut c_void; 3] = [
                (&mut self.f_a) as *mut _ as *mut c_void,
                (&mut rho_dev) as *mut _ as *mut c_void,
                (&mut n) as *mut i32 as *mut c_void,
            ];
            ck(sys::cuLaunchKernel(self.rho_fn, (cells as u32).div_ceil(256), 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut()))?;
            ck(sys::cuStreamSynchronize(self.stream))?;
            // Blocking copy after the stream is drained.
            ck(sys::cuMemcpyDtoH_v2(rho_host.as_mut_ptr().cast(), rho_dev, cells * 4))?;
            ck(sys::cuMemFree_v2(rho_dev))?;
        }
        Ok(rho_host.iter().map(|&r| r as f64).sum::<f64>() / cells as f64)
    }
}
