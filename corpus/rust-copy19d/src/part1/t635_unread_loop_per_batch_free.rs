//! case: a preprocessing loop normalizes each batch into a fresh cuMemAlloc'd buffer with a kernel and cuMemFree's it at the end of the round without reading it.
//! expect: unread_kernel_output=1
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;
use std::mem::size_of;

const NORM_SRC: &str = r#"
extern "C" __global__ void normalize(const float* x, float* y, float mean, float inv_std, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = (x[i] - mean) * inv_std;
}
"#;

const BATCH: usize = 4096;

pub fn normalize_batches(batches: &[[f32; BATCH]]) -> Result<usize, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let f = ctx.load_module(compile_ptx(NORM_SRC)?)?.load_function("normalize")?;
    let mut done = 0;
    for batch in batches {
        let (mut d_x, mut d_y): (CUdeviceptr, CUdeviceptr) = (0, 0);
        let (mut mean, mut inv_std, mut n) = (0.5f32, 4.0f32, BATCH as i32);
        unsafe {
            sys::cuMemAlloc_v2(&mut d_x, BATCH * size_of::<f32>());
            sys::cuMemAlloc_v2(&mut d_y, BATCH * size_of::<f32>());
            sys::cuMemcpyHtoD_v2(d_x, batch.as_ptr() as *const c_void, BATCH * size_of::<f32>());
            let mut params: [*mut c_void; 5] = [
                &mut d_x as *mut CUdeviceptr as *mut c_void,
                &mut d_y as *mut CUdeviceptr as *mut c_void,
                &mut mean as *mut f32 as *mut c_void,
                &mut inv_std as *mut f32 as *mut c_void,
                &mut n as *mut i32 as *mut c_void,
            ];
            sys::cuLaunchKernel(f.cu_function(), (BATCH / 256) as u32, 1, 1, 256, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
            sys::cuCtxSynchronize();
            sys::cuMemFree_v2(d_x);
            sys::cuMemFree_v2(d_y); // EXPECT: unread_kernel_output
        }
        done += 1;
    }
    Ok(done)
}
