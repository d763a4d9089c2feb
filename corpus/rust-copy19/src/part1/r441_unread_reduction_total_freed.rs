//! case: a two-pass sum: block_sums is reduced by a second kernel into d_total, but d_total is freed without being copied back and the function returns a host-side sum instead
//! expect: unread_kernel_output=1
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;

const N: usize = 8192;
const BLOCK: usize = 256;
const BLOCKS: usize = N / BLOCK;

const SUM_SRC: &str = r#"
extern "C" __global__ void block_sum(const float* x, float* block_sums) {
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = x[blockIdx.x * 256 + t];
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) { if (t < k) s[t] += s[t + k]; __syncthreads(); }
    if (t == 0) block_sums[blockIdx.x] = s[0];
}
extern "C" __global__ void final_sum(const float* block_sums, float* total, int blocks) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        float acc = 0.0f;
        for (int i = 0; i < blocks; ++i) acc += block_sums[i];
        total[0] = acc;
    }
}
"#;

pub fn sum(x: &[f32; N]) -> Result<f32, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SUM_SRC)?)?;
    let block_sum = module.load_function("block_sum")?;
    let final_sum = module.load_function("final_sum")?;

    let (mut d_x, mut d_partial, mut d_total): (CUdeviceptr, CUdeviceptr, CUdeviceptr) = (0, 0, 0);
    let mut rcs = Vec::new();
    unsafe {
        rcs.push(sys::cuMemAlloc_v2(&mut d_x, N * 4));
        rcs.push(sys::cuMemAlloc_v2(&mut d_partial, BLOCKS * 4));
        rcs.push(sys::cuMemAlloc_v2(&mut d_total, 4));
        rcs.push(sys::cuMemcpyHtoD_v2(d_x, x.as_ptr() as *const c_void, N * 4));
    }
    let mut b1 = stream.launch_builder(&block_sum);
    b1.arg(&d_x).arg(&d_partial);
    let l1 = unsafe {
        b1.launch(LaunchConfig { grid_dim: (BLOCKS as u32, 1, 1), block_dim: (BLOCK as u32, 1, 1), shared_mem_bytes: 0 })
    };
    let blocks = BLOCKS as i32;
    let mut b2 = stream.launch_builder(&final_sum);
    b2.arg(&d_partial).arg(&d_total).arg(&blocks);
    let l2 = unsafe { b2.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 }) };
    let synced = stream.synchronize();
    unsafe {
        rcs.push(sys::cuMemFree_v2(d_x));
        rcs.push(sys::cuMemFree_v2(d_partial));
        rcs.push(sys::cuMemFree_v2(d_total)); // EXPECT: unread_kernel_output
    }
    l1?;
    l2?;
    synced?;
    if rcs.iter().any(|r| *r != CUresult::CUDA_SUCCESS) {
        return Err("sum failed".into());
    }
    Ok(x.iter().sum())
}
