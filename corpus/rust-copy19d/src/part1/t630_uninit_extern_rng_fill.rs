//! case: a dropout layer fills a cudaMalloc'd mask with curandGenerateUniform (declared in the crate's extern block, body not in the program) before a kernel that only loads the mask.
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys::{cudaFree, cudaMalloc, cudaMemcpy, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

unsafe extern "C" {
    fn curandGenerateUniform(generator: *mut c_void, output: *mut f32, num: usize) -> i32;
}

const DROPOUT_SRC: &str = r#"
extern "C" __global__ void dropout(float* x, const float* u, float p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = u[i] < p ? 0.0f : x[i] / (1.0f - p);
}
"#;

const N: usize = 1 << 16;

pub unsafe fn dropout_forward(generator: *mut c_void, x: &[f32; N]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let f = ctx.load_module(compile_ptx(DROPOUT_SRC)?)?.load_function("dropout")?;
    let mut out = vec![0.0f32; N];
    let mut d_x: *mut c_void = std::ptr::null_mut();
    let mut d_u: *mut c_void = std::ptr::null_mut();
    let mut p = 0.1f32;
    let mut n = N as i32;
    unsafe {
        cudaMalloc(&mut d_x, N * size_of::<f32>());
        cudaMalloc(&mut d_u, N * size_of::<f32>());
        cudaMemcpy(d_x, x.as_ptr() as *const c_void, N * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        curandGenerateUniform(generator, d_u as *mut f32, N);
        let mut px = d_x as CUdeviceptr;
        let mut pu = d_u as CUdeviceptr;
        let mut params: [*mut c_void; 4] = [
            &mut px as *mut CUdeviceptr as *mut c_void,
            &mut pu as *mut CUdeviceptr as *mut c_void,
            &mut p as *mut f32 as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        sys::cuLaunchKernel(f.cu_function(), (N / 256) as u32, 1, 1, 256, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        cudaMemcpy(out.as_mut_ptr() as *mut c_void, d_x, N * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost);
        cudaFree(d_x);
        cudaFree(d_u);
    }
    Ok(out)
}
