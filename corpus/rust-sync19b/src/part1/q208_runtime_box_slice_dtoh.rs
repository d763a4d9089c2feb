//! case: runtime-API code copies a result into a `Box<[f32]>` with `cudaMemcpyAsync` and takes its maximum before `cudaStreamSynchronize`
//! expect: relies_on_implicit_sync=1, pageable_async_copy=1

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr;

use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys::{self, cudaMemcpyKind, dim3};

const SRC: &str = r#"
extern "C" __global__ void softplus(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = log1pf(__expf(x[i]));
}
"#;

struct DevMem(*mut c_void);

impl DevMem {
    fn alloc(bytes: usize) -> Result<Self, RuntimeError> {
        let mut p = ptr::null_mut();
        unsafe { sys::cudaMalloc(&mut p, bytes).result()? };
        Ok(Self(p))
    }
}

impl Drop for DevMem {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cudaFree(self.0);
        }
    }
}

struct Library(sys::cudaLibrary_t);

impl Library {
    fn from_ptx(ptx: &str) -> Result<Self, Box<dyn Error>> {
        let image = CString::new(ptx)?;
        let mut lib: sys::cudaLibrary_t = ptr::null_mut();
        unsafe {
            sys::cudaLibraryLoadData(
                &mut lib,
                image.as_ptr() as *const c_void,
                ptr::null_mut(),
                ptr::null_mut(),
                0,
                ptr::null_mut(),
                ptr::null_mut(),
                0,
            )
            .result()?;
        }
        Ok(Self(lib))
    }

    fn kernel(&self, name: &str) -> Result<sys::cudaKernel_t, Box<dyn Error>> {
        let name = CString::new(name)?;
        let mut k: sys::cudaKernel_t = ptr::null_mut();
        unsafe { sys::cudaLibraryGetKernel(&mut k, self.0, name.as_ptr()).result()? };
        Ok(k)
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cudaLibraryUnload(self.0);
        }
    }
}

struct Stream(sys::cudaStream_t);

impl Drop for Stream {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cudaStreamDestroy(self.0);
        }
    }
}

pub fn softplus_peak(x: &[f32]) -> Result<f32, Box<dyn Error>> {
    let n = x.len();
    let bytes = std::mem::size_of_val(x);
    let ptx = compile_ptx(SRC)?;
    let lib = Library::from_ptx(&ptx.to_src())?;
    let kernel = lib.kernel("softplus")?;

    let mut raw_stream: sys::cudaStream_t = ptr::null_mut();
    unsafe { sys::cudaStreamCreate(&mut raw_stream).result()? };
    let stream = Stream(raw_stream);

    let d_x = DevMem::alloc(bytes)?;
    let d_y = DevMem::alloc(bytes)?;
    unsafe {
        sys::cudaMemcpy(d_x.0, x.as_ptr() as *const c_void, bytes, cudaMemcpyKind::cudaMemcpyHostToDevice).result()?;
    }

    let (mut a, mut b, mut n_i) = (d_x.0, d_y.0, n as i32);
    let mut args: [*mut c_void; 3] = [
        &mut a as *mut _ as *mut c_void,
        &mut b as *mut _ as *mut c_void,
        &mut n_i as *mut _ as *mut c_void,
    ];
    let grid = dim3 { x: (n as u32).div_ceil(256), y: 1, z: 1 };
    let block = dim3 { x: 256, y: 1, z: 1 };
    unsafe {
        sys::cudaLaunchKernel(kernel as *const c_void, grid, block, args.as_mut_ptr(), 0, stream.0).result()?;
    }

    let mut y: Box<[f32]> = vec![0.0f32; n].into_boxed_slice();
    let copied = unsafe {
        sys::cudaMemcpyAsync( // EXPECT: pageable_async_copy
            y.as_mut_ptr() as *mut c_void,
            d_y.0,
            bytes,
            cudaMemcpyKind::cudaMemcpyDeviceToHost,
            stream.0,
        )
        .result()
    };
    if let Err(e) = copied {
        unsafe { sys::cudaStreamSynchronize(stream.0).result()? };
        return Err(e.into());
    }
    let peak = y.iter().copied().fold(f32::NEG_INFINITY, f32::max); // EXPECT: relies_on_implicit_sync

    unsafe { sys::cudaStreamSynchronize(stream.0).result()? };
    Ok(peak)
}
