//! case: raw driver API: the weights buffer is cuMemAlloc'd, the input is uploaded, but the weights never are; cuLaunchKernel runs a kernel that only reads the weights
//! expect: uninitialized_device_read=1

use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;
use std::ffi::{c_void, CString};
use std::mem::size_of;

const SRC: &str = r#"
extern "C" __global__ void scale_rows(const float* w, const float* x, float* y, int rows, int cols) {
    int r = blockIdx.x;
    int c = threadIdx.x;
    if (r < rows && c < cols) {
        y[r * cols + c] = w[r] * x[r * cols + c];
    }
}
"#;

const ROWS: usize = 256;
const COLS: usize = 128;

struct Kernel {
    module: sys::CUmodule,
    func: sys::CUfunction,
}

fn load_kernel(name: &str) -> Kernel {
    let ptx = CString::new(compile_ptx(SRC).expect("nvrtc").to_src()).unwrap();
    let cname = CString::new(name).unwrap();
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut func: sys::CUfunction = std::ptr::null_mut();
    unsafe {
        sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void).result().expect("load");
        sys::cuModuleGetFunction(&mut func, module, cname.as_ptr()).result().expect("get function");
    }
    Kernel { module, func }
}

pub fn scale(x: &[f32; ROWS * COLS], weights: &[f32; ROWS]) -> Vec<f32> {
    let ctx = CudaContext::new(0).unwrap();
    ctx.bind_to_thread().unwrap();
    let k = load_kernel("scale_rows");
    let mut d_w: sys::CUdeviceptr = 0;
    let mut d_x: sys::CUdeviceptr = 0;
    let mut d_y: sys::CUdeviceptr = 0;
    let mut y = vec![0.0f32; ROWS * COLS];
    unsafe {
        sys::cuMemAlloc_v2(&mut d_w, ROWS * size_of::<f32>()).result().unwrap();
        sys::cuMemAlloc_v2(&mut d_x, ROWS * COLS * size_of::<f32>()).result().unwrap();
        sys::cuMemAlloc_v2(&mut d_y, ROWS * COLS * size_of::<f32>()).result().unwrap();
        sys::cuMemcpyHtoD_v2(d_x, x.as_ptr() as *const c_void, ROWS * COLS * size_of::<f32>()).result().unwrap();
        let mut rows = ROWS as i32;
        let mut cols = COLS as i32;
        let mut params: [*mut c_void; 5] = [
            &mut d_w as *mut _ as *mut c_void,
            &mut d_x as *mut _ as *mut c_void,
            &mut d_y as *mut _ as *mut c_void,
            &mut rows as *mut _ as *mut c_void,
            &mut cols as *mut _ as *mut c_void,
        ];
        sys::cuLaunchKernel(k.func, ROWS as u32, 1, 1, COLS as u32, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut()).result().unwrap(); // EXPECT: uninitialized_device_read
        sys::cuMemcpyDtoH_v2(y.as_mut_ptr() as *mut c_void, d_y, ROWS * COLS * size_of::<f32>()).result().unwrap();
        sys::cuMemFree_v2(d_y).result().unwrap();
        sys::cuMemFree_v2(d_x).result().unwrap();
        sys::cuMemFree_v2(d_w).result().unwrap();
        sys::cuModuleUnload(k.module);
    }
    let _unused = weights;
    y
}
