//! case: runtime API: a dot-product partials kernel launched with cudaLaunchKernel on the legacy stream, then a blocking cudaMemcpy of the partials into a Vec (it waits for the legacy stream) before the host sums them and cudaFree runs
//! expect: none

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result as drv;
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys::{self as rt, cudaMemcpyKind, dim3};

const BLOCK: usize = 256;

const SRC: &str = r#"
extern "C" __global__ void dot_partials(const double* a, const double* b, double* partial, int n) {
    __shared__ double s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? a[i] * b[i] : 0.0;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}
"#;

pub fn dot(a: &[f64], b: &[f64]) -> Result<f64, Box<dyn Error>> {
    assert_eq!(a.len(), b.len());
    let n = a.len();
    let blocks = n.div_ceil(BLOCK).max(1);
    unsafe { rt::cudaSetDevice(0).result()? };
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { drv::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { drv::module::get_function(module, CString::new("dot_partials")?)? };

    let mut partial = vec![0.0f64; blocks];
    unsafe {
        let mut d_a: *mut c_void = ptr::null_mut();
        let mut d_b: *mut c_void = ptr::null_mut();
        let mut d_p: *mut c_void = ptr::null_mut();
        let a1 = rt::cudaMalloc(&mut d_a, n * 8);
        let a2 = rt::cudaMalloc(&mut d_b, n * 8);
        let a3 = rt::cudaMalloc(&mut d_p, blocks * 8);
        if let Err(e) = a1.result().and(a2.result()).and(a3.result()) {
            rt::cudaFree(d_a);
            rt::cudaFree(d_b);
            rt::cudaFree(d_p);
            return Err(e.into());
        }
        let mut status = rt::cudaMemcpy(d_a, a.as_ptr().cast(), n * 8, cudaMemcpyKind::cudaMemcpyHostToDevice)
            .result()
            .and(rt::cudaMemcpy(d_b, b.as_ptr().cast(), n * 8, cudaMemcpyKind::cudaMemcpyHostToDevice).result());
        if status.is_ok() {
            let (mut p_a, mut p_b, mut p_p, mut n_i) = (d_a, d_b, d_p, n as i32);
            let mut args: [*mut c_void; 4] =
                [(&raw mut p_a).cast(), (&raw mut p_b).cast(), (&raw mut p_p).cast(), (&raw mut n_i).cast()];
            status = rt::cudaLaunchKernel(
                f as *const c_void,
                dim3 { x: blocks as u32, y: 1, z: 1 },
                dim3 { x: BLOCK as u32, y: 1, z: 1 },
                args.as_mut_ptr(),
                0,
                ptr::null_mut(),
            )
            .result();
        }
        if status.is_ok() {
            status = rt::cudaMemcpy(partial.as_mut_ptr().cast(), d_p, blocks * 8, cudaMemcpyKind::cudaMemcpyDeviceToHost)
                .result();
        }
        rt::cudaFree(d_a);
        rt::cudaFree(d_b);
        rt::cudaFree(d_p);
        let _ = drv::module::unload(module);
        status?;
    }
    Ok(partial.iter().sum())
}
