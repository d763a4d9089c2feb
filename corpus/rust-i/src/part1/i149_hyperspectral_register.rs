//! case: hyperspectral cube band statistics on the driver sys layer: the Vec-backed cube is page-locked with cuMemHostRegister_v2, uploaded with cuMemcpyHtoDAsync_v2, the stream synchronized, and cuMemHostUnregister called on the same pointer; the per-band means come back into cuMemAllocHost memory released with cuMemFreeHost (near-miss for pageable_async_copy and mismatched_free)
//! expect: none

use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys;
use cudarc::nvrtc::compile_ptx;

const BAND_SRC: &str = r#"
extern "C" __global__ void band_mean(const unsigned short* cube, float* means, unsigned pixels, unsigned bands) {
    unsigned b = blockIdx.x;
    if (b >= bands) return;
    float s = 0.f;
    for (unsigned p = threadIdx.x; p < pixels; p += blockDim.x) s += cube[p * bands + b];
    __shared__ float red[256];
    red[threadIdx.x] = s; __syncthreads();
    for (unsigned w = blockDim.x / 2; w > 0; w >>= 1) { if (threadIdx.x < w) red[threadIdx.x] += red[threadIdx.x + w]; __syncthreads(); }
    if (threadIdx.x == 0) means[b] = red[0] / pixels;
}
"#;

pub struct Cube {
    pub samples: Vec<u16>,
    pub pixels: usize,
    pub bands: usize,
}

struct Registered<'a> {
    ptr: *mut c_void,
    _data: &'a mut [u16],
}

impl<'a> Registered<'a> {
    fn new(data: &'a mut [u16]) -> Result<Self, sys::CUresult> {
        let ptr = data.as_mut_ptr() as *mut c_void;
        let r = unsafe { sys::cuMemHostRegister_v2(ptr, std::mem::size_of_val(data), 0) };
        if r != sys::CUresult::CUDA_SUCCESS {
            return Err(r);
        }
        Ok(Self { ptr, _data: data })
    }
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemHostUnregister(self.ptr);
        }
    }
}

pub fn band_means(cube: &mut Cube, stream: sys::CUstream) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let image = CString::new(compile_ptx(BAND_SRC)?.to_src())?;
    let bytes = cube.samples.len() * 2;
    let mut module: sys::CUmodule = null_mut();
    let mut func: sys::CUfunction = null_mut();
    let (mut d_cube, mut d_means): (sys::CUdeviceptr, sys::CUdeviceptr) = (0, 0);
    let mut h_means: *mut c_void = null_mut();
    let (mut pixels, mut bands) = (cube.pixels as u32, cube.bands as u32);
    unsafe {
        sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
        sys::cuModuleGetFunction(&mut func, module, c"band_mean".as_ptr()).result()?;
        sys::cuMemAlloc_v2(&mut d_cube, bytes).result()?;
        sys::cuMemAlloc_v2(&mut d_means, cube.bands * 4).result()?;
        sys::cuMemAllocHost_v2(&mut h_means, cube.bands * 4).result()?;
    }
    {
        let reg = Registered::new(&mut cube.samples).map_err(|e| format!("cuMemHostRegister: {e:?}"))?;
        let mut params = [
            (&mut d_cube) as *mut _ as *mut c_void,
            (&mut d_means) as *mut _ as *mut c_void,
            (&mut pixels) as *mut u32 as *mut c_void,
            (&mut bands) as *mut u32 as *mut c_void,
        ];
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(d_cube, reg.ptr, bytes, stream).result()?;
            sys::cuLaunchKernel(func, bands, 1, 1, 256, 1, 1, 0, stream, params.as_mut_ptr(), null_mut()).result()?;
            sys::cuMemcpyDtoHAsync_v2(h_means, d_means, cube.bands * 4, stream).result()?;
            sys::cuStreamSynchronize(stream).result()?;
        }
    } // unregistered after the synchronize
    let means = unsafe { std::slice::from_raw_parts(h_means as *const f32, cube.bands) }.to_vec();
    unsafe {
        sys::cuMemFreeHost(h_means).result()?;
        sys::cuMemFree_v2(d_means).result()?;
        sys::cuMemFree_v2(d_cube).result()?;
        sys::cuModuleUnload(module).result()?;
    }
    Ok(means)
}
