//! case: incompressible-flow projection step measuring the velocity divergence with stream-ordered scratch memory (cuMemAllocAsync): the per-block partials are released with cuMemFreeAsync on the same stream, the reduced norm buffer with cuMemFree after the stream is synchronized; both are legitimate releases of stream-ordered allocations
//! expect: none

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdeviceptr, CUstream};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const DIV_SRC: &str = r#"
extern "C" __global__ void divergence_partials(const float* u, const float* v, unsigned nx, unsigned ny,
                                               float inv_h, float* partials) {
    extern __shared__ float s[];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float d = 0.f;
    if (i < nx * ny) {
        unsigned x = i % nx, y = i / nx;
        if (x + 1 < nx && y + 1 < ny) {
            float du = u[i + 1] - u[i], dv = v[i + nx] - v[i];
            d = (du + dv) * inv_h;
        }
    }
    s[threadIdx.x] = d * d;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = s[0];
}

extern "C" __global__ void sum_partials(const float* partials, unsigned count, float* norm2) {
    float acc = 0.f;
    for (unsigned k = threadIdx.x; k < count; k += blockDim.x) acc += partials[k];
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(norm2, acc);
}
"#;

pub struct DivergenceProbe {
    stream: CUstream,
    module: sys::CUmodule,
    partials_k: sys::CUfunction,
    sum_k: sys::CUfunction,
    host_norm: *mut f32,
}

impl DivergenceProbe {
    pub fn new(stream: CUstream) -> Result<Self> {
        let ptx = cudarc::nvrtc::compile_ptx(DIV_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
        let partials_k = unsafe { result::module::get_function(module, CString::new("divergence_partials")?)? };
        let sum_k = unsafe { result::module::get_function(module, CString::new("sum_partials")?)? };
        let host_norm = unsafe { result::malloc_host(4, 0)? }.cast::<f32>();
        Ok(Self { stream, module, partials_k, sum_k, host_norm })
    }

    /// L2 norm of div(u, v) on an nx x ny staggered grid.
    pub fn l2(&self, u: CUdeviceptr, v: CUdeviceptr, nx: u32, ny: u32, h: f32) -> Result<f32> {
        let cells = nx * ny;
        let blocks = cells.div_ceil(256);
        let partials = unsafe { result::malloc_async(self.stream, blocks as usize * 4)? };
        let norm2 = unsafe { result::malloc_async(self.stream, 4)? };
        let (mut u_, mut v_, mut p_, mut n_) = (u, v, partials, norm2);
        let (mut nx_, mut ny_, mut inv_h, mut count) = (nx, ny, 1.0 / h, blocks);
        let mut a1: [*mut c_void; 6] = [
            (&mut u_ as *mut u64).cast(),
            (&mut v_ as *mut u64).cast(),
            (&mut nx_ as *mut u32).cast(),
            (&mut ny_ as *mut u32).cast(),
            (&mut inv_h as *mut f32).cast(),
            (&mut p_ as *mut u64).cast(),
        ];
        let mut a2: [*mut c_void; 3] = [
            (&mut p_ as *mut u64).cast(),
            (&mut count as *mut u32).cast(),
            (&mut n_ as *mut u64).cast(),
        ];
        unsafe {
            result::memset_d8_async(norm2, 0, 4, self.stream)?;
            result::launch_kernel(self.partials_k, (blocks, 1, 1), (256, 1, 1), 256 * 4, self.stream, &mut a1)?;
            result::launch_kernel(self.sum_k, (1, 1, 1), (256, 1, 1), 0, self.stream, &mut a2)?;
            // Stream-ordered: freed after the kernels that use it.
            result::free_async(partials, self.stream)?;
            sys::cuMemcpyDtoHAsync_v2(self.host_norm.cast(), norm2, 4, self.stream).result()?;
            result::stream::synchronize(self.stream)?;
            // Everything touching norm2 has completed; cuMemFree of a cuMemAllocAsync pointer is allowed.
            result::free_sync(norm2)?;
        }
        Ok(unsafe { *self.host_norm }.sqrt())
    }
}

impl Drop for DivergenceProbe {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::synchronize(self.stream);
            let _ = result::free_host(self.host_norm.cast());
            let _ = result::module::unload(self.module);
        }
    }
}

pub fn check_projection(u: CUdeviceptr, v: CUdeviceptr, nx: u32, ny: u32) -> Result<bool> {
    result::init()?;
    let dev = result::device::get(0)?;
    unsafe { result::ctx::set_current(result::primary_ctx::retain(dev)?)? };
    let mut stream: CUstream = null_mut();
    unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()? };
    let probe = DivergenceProbe::new(stream)?;
    let norm = probe.l2(u, v, nx, ny, 1.0 / nx as f32)?;
    drop(probe);
    unsafe { result::stream::destroy(stream)? };
    Ok(norm < 1e-3)
}
