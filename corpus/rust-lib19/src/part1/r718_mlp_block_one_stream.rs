//! Full MLP block on one stream: up projection (raw cuBLAS), GELU (an NVRTC kernel), down
//! projection (raw cuBLAS), output copied to pinned memory. The cuBLAS handle is bound to the
//! context's work stream with `cublasSetStream`, so the kernel and both GEMMs run in order on it.

use std::error::Error;
use std::ffi::c_void;

use cudarc::cublas::{result as blas, sys as blas_sys};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg, result as drv, sys as cu};
use cudarc::nvrtc::compile_ptx;

const F32: usize = std::mem::size_of::<f32>();

const MLP_KERNELS: &str = r#"
extern "C" __global__ void gelu_inplace(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        x[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
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
            let _ = drv::free_sync(self.ptr);
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

fn fill_scaled(values: &mut [f32], period: usize, scale: f32) {
    for (i, v) in values.iter_mut().enumerate() {
        *v = ((i % period) as f32 - (period / 2) as f32) * scale;
    }
}

pub fn mlp_block(model: usize, hidden: usize, tokens: usize) -> Result<Vec<f32>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let work = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(MLP_KERNELS)?)?;
    let gelu_inplace = module.load_function("gelu_inplace")?;

    let handle = blas::create_handle()?;
    unsafe { blas::set_stream(handle, work.cu_stream() as _)? };

    let w1 = DeviceBuffer { ptr: unsafe { drv::malloc_sync(hidden * model * F32)? }, len: hidden * model };
    let w2 = DeviceBuffer { ptr: unsafe { drv::malloc_sync(model * hidden * F32)? }, len: model * hidden };
    let x = DeviceBuffer { ptr: unsafe { drv::malloc_sync(model * tokens * F32)? }, len: model * tokens };
    let act = DeviceBuffer { ptr: unsafe { drv::malloc_sync(hidden * tokens * F32)? }, len: hidden * tokens };
    let y = DeviceBuffer { ptr: unsafe { drv::malloc_sync(model * tokens * F32)? }, len: model * tokens };

    let h_w1_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(hidden * model * F32, 0)? } as *mut f32, len: hidden * model };
    let h_w2_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(model * hidden * F32, 0)? } as *mut f32, len: model * hidden };
    let h_x_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(model * tokens * F32, 0)? } as *mut f32, len: model * tokens };
    let h_y_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(model * tokens * F32, 0)? } as *mut f32, len: model * tokens };
    let h_w1: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_w1_buf.ptr, hidden * model) };
    let h_w2: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_w2_buf.ptr, model * hidden) };
    let h_x: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_x_buf.ptr, model * tokens) };
    let h_y: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_y_buf.ptr, model * tokens) };

    fill_scaled(h_w1, 17, 0.01);
    fill_scaled(h_w2, 23, 0.01);
    fill_scaled(h_x, 7, 0.2);

    let s = work.cu_stream();
    unsafe {
        cu::cuMemcpyHtoDAsync_v2(w1.ptr, h_w1.as_ptr() as *const c_void, hidden * model * F32, s).result()?;
        cu::cuMemcpyHtoDAsync_v2(w2.ptr, h_w2.as_ptr() as *const c_void, model * hidden * F32, s).result()?;
        cu::cuMemcpyHtoDAsync_v2(x.ptr, h_x.as_ptr() as *const c_void, model * tokens * F32, s).result()?;
    }

    let (one, zero) = (1.0f32, 0.0f32);
    let op_n = blas_sys::cublasOperation_t::CUBLAS_OP_N;
    // act = W1 * x
    unsafe {
        blas::sgemm(
            handle, op_n, op_n, hidden as i32, tokens as i32, model as i32, &one,
            w1.ptr as *const f32, hidden as i32, x.ptr as *const f32, model as i32, &zero,
            act.ptr as *mut f32, hidden as i32,
        )?;
    }

    let n = (hidden * tokens) as i32;
    let act_dev = act.ptr;
    let mut launch = work.launch_builder(&gelu_inplace);
    launch.arg(&act_dev).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n as u32)) }?;

    // y = W2 * gelu(act), reading the kernel's output in stream order.
    unsafe {
        blas::sgemm(
            handle, op_n, op_n, model as i32, tokens as i32, hidden as i32, &one,
            w2.ptr as *const f32, model as i32, act.ptr as *const f32, hidden as i32, &zero,
            y.ptr as *mut f32, model as i32,
        )?;
        cu::cuMemcpyDtoHAsync_v2(h_y.as_mut_ptr() as *mut c_void, y.ptr, model * tokens * F32, s).result()?;
    }
    work.synchronize()?;
    let out = h_y.to_vec();

    unsafe { blas::destroy_handle(handle)? };
    Ok(out)
}
