//! case: training kernels keep a global step counter and a loss accumulator in `__device__` variables; the trainer gets their addresses with `cuModuleGetGlobal`, resets them each epoch with memsets, and its shutdown calls `cuMemFree` on the loss accumulator's address as if it were an allocation
//! expect: mismatched_free=1

use std::ffi::{c_void, CString};

use cudarc::driver::{result, sys, CudaContext};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const TRAIN_SRC: &str = r#"
__device__ unsigned long long g_step;
__device__ float g_loss_sum;

extern "C" __global__ void sgd_step(float* w, const float* grad, const float* loss, float lr, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] -= lr * grad[i];
    if (i == 0) {
        atomicAdd(&g_step, 1ULL);
        atomicAdd(&g_loss_sum, loss[0]);
    }
}
"#;

pub struct Trainer {
    stream: sys::CUstream,
    module: sys::CUmodule,
    sgd: sys::CUfunction,
    step_ptr: sys::CUdeviceptr,
    loss_ptr: sys::CUdeviceptr,
}

fn global(module: sys::CUmodule, name: &str) -> Result<sys::CUdeviceptr> {
    let c = CString::new(name)?;
    let (mut ptr, mut bytes) = (0, 0usize);
    unsafe { sys::cuModuleGetGlobal_v2(&mut ptr, &mut bytes, module, c.as_ptr()).result()? };
    Ok(ptr)
}

impl Trainer {
    pub fn new() -> Result<Self> {
        let image = CString::new(compile_ptx(TRAIN_SRC)?.to_src())?;
        let mut module: sys::CUmodule = std::ptr::null_mut();
        let mut sgd: sys::CUfunction = std::ptr::null_mut();
        let name = CString::new("sgd_step")?;
        unsafe {
            sys::cuModuleLoadData(&mut module, image.as_ptr() as *const c_void).result()?;
            sys::cuModuleGetFunction(&mut sgd, module, name.as_ptr()).result()?;
        }
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        Ok(Trainer { stream, module, sgd, step_ptr: global(module, "g_step")?, loss_ptr: global(module, "g_loss_sum")? })
    }

    pub fn start_epoch(&self) -> Result<()> {
        unsafe {
            sys::cuMemsetD8Async(self.step_ptr, 0, 8, self.stream).result()?;
            sys::cuMemsetD8Async(self.loss_ptr, 0, 4, self.stream).result()?;
        }
        Ok(())
    }

    pub fn step(&self, w: sys::CUdeviceptr, grad: sys::CUdeviceptr, loss: sys::CUdeviceptr, lr: f32, n: u32) -> Result<()> {
        let (mut w, mut grad, mut loss, mut lr, mut n_) = (w, grad, loss, lr, n);
        let mut params: [*mut c_void; 5] = [
            &mut w as *mut _ as *mut c_void,
            &mut grad as *mut _ as *mut c_void,
            &mut loss as *mut _ as *mut c_void,
            &mut lr as *mut _ as *mut c_void,
            &mut n_ as *mut _ as *mut c_void,
        ];
        unsafe { result::launch_kernel(self.sgd, (n.div_ceil(256), 1, 1), (256, 1, 1), 0, self.stream, &mut params)? };
        Ok(())
    }

    pub fn epoch_mean_loss(&self) -> Result<f32> {
        let (mut steps, mut sum) = (0u64, 0f32);
        unsafe {
            result::stream::synchronize(self.stream)?;
            sys::cuMemcpyDtoH_v2(&mut steps as *mut u64 as *mut c_void, self.step_ptr, 8).result()?;
            sys::cuMemcpyDtoH_v2(&mut sum as *mut f32 as *mut c_void, self.loss_ptr, 4).result()?;
        }
        Ok(if steps == 0 { 0.0 } else { sum / steps as f32 })
    }

    pub fn shutdown(self) -> Result<()> {
        unsafe {
            result::stream::synchronize(self.stream)?;
            sys::cuMemFree_v2(self.loss_ptr).result()?; // EXPECT: mismatched_free
            sys::cuModuleUnload(self.module).result()?;
            result::stream::destroy(self.stream)?;
        }
        Ok(())
    }
}

pub fn train(epochs: usize, steps_per_epoch: usize, n: u32) -> Result<Vec<f32>> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let trainer = Trainer::new()?;
    let w = unsafe { result::malloc_sync(n as usize * 4)? };
    let grad = unsafe { result::malloc_sync(n as usize * 4)? };
    let loss = unsafe { result::malloc_sync(4)? };
    unsafe {
        result::memset_d8_async(w, 0, n as usize * 4, trainer.stream)?;
        result::memset_d8_async(grad, 0, n as usize * 4, trainer.stream)?;
        result::memset_d8_async(loss, 0, 4, trainer.stream)?;
    }
    let mut history = Vec::with_capacity(epochs);
    for _ in 0..epochs {
        trainer.start_epoch()?;
        for _ in 0..steps_per_epoch {
            trainer.step(w, grad, loss, 1e-3, n)?;
        }
        history.push(trainer.epoch_mean_loss()?);
    }
    trainer.shutdown()?;
    unsafe {
        result::free_sync(w)?;
        result::free_sync(grad)?;
        result::free_sync(loss)?;
    }
    Ok(history)
}
