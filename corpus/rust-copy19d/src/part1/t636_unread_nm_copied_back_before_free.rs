//! case: a prefix-scale kernel writes d_out, which is cuMemcpyDtoH'd back before cuMemFree; the result is read.
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmodule};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;
use std::ffi::{c_void, CString};
use std::mem::size_of;

const SCALE_SRC: &str = r#"
extern "C" __global__ void scale(const float* in, float* out, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = s * in[i];
}
"#;

const N: usize = 1 << 14;
const BYTES: usize = N * size_of::<f32>();

pub fn scale(input: &[f32; N], s: f32) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let image = CString::new(compile_ptx(SCALE_SRC)?.to_src())?;
    let mut module: CUmodule = std::ptr::null_mut();
    let mut func: CUfunction = std::ptr::null_mut();
    unsafe {
        sys::cuModuleLoadData(&mut module, image.as_ptr() as *const c_void).result()?;
        sys::cuModuleGetFunction(&mut func, module, c"scale".as_ptr()).result()?;
    }
    let mut out = vec![0.0f32; N];
    let (mut d_in, mut d_out): (CUdeviceptr, CUdeviceptr) = (0, 0);
    let (mut s, mut n) = (s, N as i32);
    unsafe {
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, input.as_ptr() as *const c_void, BYTES);
        let mut params: [*mut c_void; 4] = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut s as *mut f32 as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(func, (N / 256) as u32, 1, 1, 256, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        let copied = sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_out, BYTES);
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(d_out);
        sys::cuModuleUnload(module);
        launched.result()?;
        copied.result()?;
    }
    Ok(out)
}
