//! case: raw driver API with a cudarc launch: a kernel writes d_out, the context is synchronized and d_out is freed with cuMemFree_v2 without a copy back; the host then checks its stale h_out (DRACC 012)
//! expect: unread_kernel_output=1
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;

const N: usize = 1024;
const BYTES: usize = N * 4;

const ADD_ONE_SRC: &str = r#"
extern "C" __global__ void add_one(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] + 1;
}
"#;

pub fn add_one_checked() -> Result<bool, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(ADD_ONE_SRC)?)?.load_function("add_one")?;

    let h_in: Vec<i32> = vec![41; N];
    let h_out: Vec<i32> = vec![0; N];
    let (mut d_in, mut d_out): (CUdeviceptr, CUdeviceptr) = (0, 0);
    let mut rcs = Vec::new();
    unsafe {
        rcs.push(sys::cuMemAlloc_v2(&mut d_in, BYTES));
        rcs.push(sys::cuMemAlloc_v2(&mut d_out, BYTES));
        rcs.push(sys::cuMemcpyHtoD_v2(d_in, h_in.as_ptr() as *const c_void, BYTES));
    }
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&d_in).arg(&d_out).arg(&n);
    let launched = unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)) };
    let synced = ctx.synchronize();
    unsafe {
        rcs.push(sys::cuMemFree_v2(d_in));
        rcs.push(sys::cuMemFree_v2(d_out)); // EXPECT: unread_kernel_output
    }
    launched?;
    synced?;
    if rcs.iter().any(|r| *r != CUresult::CUDA_SUCCESS) {
        return Err("add_one failed".into());
    }
    Ok(h_out.iter().all(|v| *v == 42))
}
