//! case: runtime-API dot product on a blocking stream; block partials come back with a blocking `cudaMemcpy` into a `Vec`, then the inputs are `cudaFree`d
//! expect: none

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr;

use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys::{self, cudaMemcpyKind, dim3};

const SRC: &str = r#"
extern "C" __global__ void dot_partial(const float* a, const float* b, float* partial, int n) {
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? a[i] * b[i] : 0.0f;
    __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step >>= 1) {
        if (threadIdx.x < step) s[threadIdx.x] += s[threadIdx.x + step];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}
"#;

const BLOCK: u32 = 256;

struct DevMem(*mut c_void);

impl DevMem {
    fn alloc(bytes: usize) -> Result<Self, RuntimeError> {
        let mut p = ptr::null_mut();
        unsafe { sys::cudaMalloc(&mut p, bytes).result()? };
        Ok(Self(p))
    }

    fn upload(data: &[f32]) -> Result<Self, RuntimeError> {
        let m = Self::alloc(std::mem::size_of_val(data))?;
        unsafe {
            sys::cudaMemcpy(m.0, data.as_ptr() as *const c_void, std::mem::size_of_val(data), cudaMemcpyKind::cudaMemcpyHostToDevice)
                .result()?;
        }
        Ok(m)
    }
}

impl Drop for DevMem {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cudaFree(self.0);
        }
    }
}

pub struct DotEngine {
    lib: sys::cudaLibrary_t,
    kernel: sys::cudaKernel_t,
    stream: sys::cudaStream_t,
}

impl DotEngine {
    pub fn new() -> Result<Self, Box<dyn Error>> {
        let image = CString::new(compile_ptx(SRC)?.to_src())?;
        let mut e = Self { lib: ptr::null_mut(), kernel: ptr::null_mut(), stream: ptr::null_mut() };
        unsafe {
            sys::cudaLibraryLoadData(&mut e.lib, image.as_ptr() as *const c_void, ptr::null_mut(), ptr::null_mut(), 0, ptr::null_mut(), ptr::null_mut(), 0)
                .result()?;
            sys::cudaLibraryGetKernel(&mut e.kernel, e.lib, c"dot_partial".as_ptr()).result()?;
            // default flags: a blocking stream, ordered with the legacy default stream
            sys::cudaStreamCreate(&mut e.stream).result()?;
        }
        Ok(e)
    }

    pub fn dot(&self, a: &[f32], b: &[f32]) -> Result<f64, Box<dyn Error>> {
        assert_eq!(a.len(), b.len());
        let n = a.len();
        let blocks = (n as u32).div_ceil(BLOCK);
        let d_a = DevMem::upload(a)?;
        let d_b = DevMem::upload(b)?;
        let d_part = DevMem::alloc(blocks as usize * 4)?;

        let (mut pa, mut pb, mut pp, mut n_i) = (d_a.0, d_b.0, d_part.0, n as i32);
        let mut args: [*mut c_void; 4] = [
            &mut pa as *mut _ as *mut c_void,
            &mut pb as *mut _ as *mut c_void,
            &mut pp as *mut _ as *mut c_void,
            &mut n_i as *mut _ as *mut c_void,
        ];
        unsafe {
            sys::cudaLaunchKernel(
                self.kernel as *const c_void,
                dim3 { x: blocks, y: 1, z: 1 },
                dim3 { x: BLOCK, y: 1, z: 1 },
                args.as_mut_ptr(),
                0,
                self.stream,
            )
            .result()?;
        }

        let mut partials = vec![0.0f32; blocks as usize];
        unsafe {
            sys::cudaMemcpy(
                partials.as_mut_ptr() as *mut c_void,
                d_part.0,
                partials.len() * 4,
                cudaMemcpyKind::cudaMemcpyDeviceToHost,
            )
            .result()?;
        }
        drop(d_a);
        drop(d_b);
        Ok(partials.iter().map(|&p| p as f64).sum())
    }
}

impl Drop for DotEngine {
    fn drop(&mut self) {
        unsafe {
            if !self.stream.is_null() {
                let _ = sys::cudaStreamDestroy(self.stream);
            }
            if !self.lib.is_null() {
                let _ = sys::cudaLibraryUnload(self.lib);
            }
        }
    }
}
