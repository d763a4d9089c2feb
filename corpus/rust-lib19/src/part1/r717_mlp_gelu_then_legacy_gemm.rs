//! MLP block of a small inference server: GELU on the pre-activations (an NVRTC kernel on the
//! context's work stream), then the down projection out = W2 * act with raw cuBLAS, and a
//! synchronous copy of the output. The projection handle is created with `cublasCreate` and
//! used as it comes.

use std::error::Error;
use std::ffi::c_void;

use cudarc::cublas::{result as blas, sys as blas_sys};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg, result as drv, sys as cu};
use cudarc::nvrtc::compile_ptx;

const F32: usize = std::mem::size_of::<f32>();

const MLP_KERNELS: &str = r#"
extern "C" __global__ void gelu(const float* pre, float* act, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = pre[i];
        act[i] = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
    }
}
"#;

struct DeviceBuffer {
    ptr: cu::CUdeviceptr,
    len: usize,
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        unsafe {
            let _ = cu::cuCtxSynchronize();
            let _ = cu::cuMemFree_v2(self.ptr);
        }
    }
}

struct PinnedBuffer {
    ptr: *mut f32,
    len: usize,
}

impl Drop for PinnedBuffer {
    fn drop(&mut self) {
        unsafe {
            let _ = cu::cuCtxSynchronize();
            let _ = drv::free_host(self.ptr as *mut c_void);
        }
    }
}

pub struct MlpDims {
    pub hidden: usize,
    pub model: usize,
    pub tokens: usize,
}

pub fn mlp_down_projection(dims: MlpDims) -> Result<Vec<f32>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let work = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(MLP_KERNELS)?)?;
    let gelu = module.load_function("gelu")?;
    let proj = blas::create_handle()?;

    let (h, d, t) = (dims.hidden, dims.model, dims.tokens);

    let mut p_w2: cu::CUdeviceptr = 0;
    unsafe { cu::cuMemAlloc_v2(&mut p_w2, d * h * F32) }.result()?;
    let w2 = DeviceBuffer { ptr: p_w2, len: d * h };
    let mut p_pre: cu::CUdeviceptr = 0;
    unsafe { cu::cuMemAlloc_v2(&mut p_pre, h * t * F32) }.result()?;
    let pre = DeviceBuffer { ptr: p_pre, len: h * t };
    let mut p_act: cu::CUdeviceptr = 0;
    unsafe { cu::cuMemAlloc_v2(&mut p_act, h * t * F32) }.result()?;
    let act = DeviceBuffer { ptr: p_act, len: h * t };
    let mut p_out: cu::CUdeviceptr = 0;
    unsafe { cu::cuMemAlloc_v2(&mut p_out, d * t * F32) }.result()?;
    let out = DeviceBuffer { ptr: p_out, len: d * t };

    let h_w2_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(d * h * F32, 0)? } as *mut f32, len: d * h };
    let h_pre_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(h * t * F32, 0)? } as *mut f32, len: h * t };
    let h_out_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(d * t * F32, 0)? } as *mut f32, len: d * t };
    let h_w2: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_w2_buf.ptr, d * h) };
    let h_pre: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_pre_buf.ptr, h * t) };
    let h_out: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_out_buf.ptr, d * t) };

    for (i, v) in h_w2.iter_mut().enumerate() {
        *v = ((i % 19) as f32 - 9.0) / (9.0 * (h as f32).sqrt());
    }
    for (i, v) in h_pre.iter_mut().enumerate() {
        *v = ((i % 41) as f32 - 20.0) / 10.0;
    }

    // Weights are resident before anything uses them.
    unsafe { cu::cuMemcpyHtoDAsync_v2(w2.ptr, h_w2.as_ptr() as *const c_void, d * h * F32, work.cu_stream()) }
        .result()?;
    work.synchronize()?;

    unsafe { cu::cuMemcpyHtoDAsync_v2(pre.ptr, h_pre.as_ptr() as *const c_void, h * t * F32, work.cu_stream()) }
        .result()?;
    let n = (h * t) as i32;
    let (pre_dev, act_dev) = (pre.ptr, act.ptr);
    let mut launch = work.launch_builder(&gelu);
    launch.arg(&pre_dev).arg(&act_dev).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n as u32)) }?;

    let (one, zero) = (1.0f32, 0.0f32);
    unsafe {
        blas::sgemm( // EXPECT: missing_sync
            proj,
            blas_sys::cublasOperation_t::CUBLAS_OP_N,
            blas_sys::cublasOperation_t::CUBLAS_OP_N,
            d as i32,
            t as i32,
            h as i32,
            &one,
            w2.ptr as *const f32,
            d as i32,
            act.ptr as *const f32,
            h as i32,
            &zero,
            out.ptr as *mut f32,
            d as i32,
        )?;
        cu::cuMemcpyDtoH_v2(h_out.as_mut_ptr() as *mut c_void, out.ptr, d * t * F32).result()?;
    }
    let result = h_out.to_vec();

    work.synchronize()?;
    unsafe { blas::destroy_handle(proj)? };
    Ok(result)
}
