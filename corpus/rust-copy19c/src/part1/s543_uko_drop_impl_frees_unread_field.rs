//! case: a solver struct frees its device fields in Drop; run() launches the kernel that writes `residual`, and the solver is dropped without the residual ever being copied back
//! expect: unread_kernel_output=1

use cudarc::driver::sys;
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;
use std::mem::size_of;
use std::sync::Arc;

const SRC: &str = r#"
extern "C" __global__ void residual(const float* x, const float* rhs, float* r, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) r[i] = rhs[i] - (2.0f * x[i] - x[i - 1] - x[i + 1]);
}
"#;

const N: usize = 4096;
const BYTES: usize = N * size_of::<f32>();

struct Solver {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    x: sys::CUdeviceptr,
    rhs: sys::CUdeviceptr,
    residual: sys::CUdeviceptr,
}

impl Solver {
    fn new(x0: &[f32; N], rhs: &[f32; N]) -> Solver {
        let ctx = CudaContext::new(0).unwrap();
        let stream = ctx.default_stream();
        let kernel = ctx.load_module(compile_ptx(SRC).unwrap()).unwrap().load_function("residual").unwrap();
        let mut s = Solver { stream, kernel, x: 0, rhs: 0, residual: 0 };
        unsafe {
            sys::cuMemAlloc_v2(&mut s.x, BYTES).result().unwrap();
            sys::cuMemAlloc_v2(&mut s.rhs, BYTES).result().unwrap();
            sys::cuMemAlloc_v2(&mut s.residual, BYTES).result().unwrap();
            sys::cuMemcpyHtoD_v2(s.x, x0.as_ptr() as *const c_void, BYTES).result().unwrap();
            sys::cuMemcpyHtoD_v2(s.rhs, rhs.as_ptr() as *const c_void, BYTES).result().unwrap();
        }
        s
    }

    fn run(&self) {
        let n = N as i32;
        let mut b = self.stream.launch_builder(&self.kernel);
        b.arg(&self.x).arg(&self.rhs).arg(&self.residual).arg(&n);
        unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)).unwrap() };
        self.stream.synchronize().unwrap();
    }
}

impl Drop for Solver {
    fn drop(&mut self) {
        unsafe {
            sys::cuMemFree_v2(self.x);
            sys::cuMemFree_v2(self.rhs);
            sys::cuMemFree_v2(self.residual); // EXPECT: unread_kernel_output
        }
    }
}

pub fn main_like() {
    let x0 = [0.0f32; N];
    let rhs = [1.0f32; N];
    let solver = Solver::new(&x0, &rhs);
    solver.run();
    println!("done");
}
