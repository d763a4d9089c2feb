//! A small MLP classifier (`logits = W2 relu(W1 x)`) that owns its cuBLAS handle, a cudarc
//! stream, the ReLU kernel and all of its buffers. Besides the logits it reports, for each
//! sample, the dot product of its logit vector with a prototype vector (cuBLAS `Sdot` with
//! the default host pointer mode).

use std::error::Error;
use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;

use cudarc::cublas::sys as blas;
use cudarc::driver::{result, sys, CudaContext, CudaFunction, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const RELU_SRC: &str = r#"
extern "C" __global__ void relu_inplace(float* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && v[i] < 0.0f) v[i] = 0.0f;
}
"#;

/// Page-locked staging memory released on every path.
struct Staging(*mut c_void);

impl Drop for Staging {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = result::free_host(self.0);
        }
    }
}

pub struct Classifier {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    relu: CudaFunction,
    handle: blas::cublasHandle_t,
    w1: sys::CUdeviceptr,
    w2: sys::CUdeviceptr,
    prototype: sys::CUdeviceptr,
    x: sys::CUdeviceptr,
    hidden: sys::CUdeviceptr,
    logits: sys::CUdeviceptr,
    x_host: *mut f32,
    logits_host: *mut f32,
    d_in: usize,
    d_hidden: usize,
    classes: usize,
    batch: usize,
}

impl Classifier {
    pub fn new(
        ctx: Arc<CudaContext>,
        w1: &[f32],
        w2: &[f32],
        prototype: &[f32],
        d_in: usize,
        d_hidden: usize,
        classes: usize,
        batch: usize,
    ) -> Result<Self> {
        assert_eq!(w1.len(), d_hidden * d_in);
        assert_eq!(w2.len(), classes * d_hidden);
        assert_eq!(prototype.len(), classes);
        let stream = ctx.new_stream()?;
        let relu = ctx.load_module(compile_ptx(RELU_SRC)?)?.load_function("relu_inplace")?;

        let mut model = Classifier {
            ctx,
            stream,
            relu,
            handle: ptr::null_mut(),
            w1: 0,
            w2: 0,
            prototype: 0,
            x: 0,
            hidden: 0,
            logits: 0,
            x_host: ptr::null_mut(),
            logits_host: ptr::null_mut(),
            d_in,
            d_hidden,
            classes,
            batch,
        };

        let f = std::mem::size_of::<f32>();
        let param_len = w1.len() + w2.len() + prototype.len();
        unsafe {
            blas::cublasCreate_v2(&mut model.handle).result()?;
            blas::cublasSetStream_v2(model.handle, model.stream.cu_stream() as blas::cudaStream_t)
                .result()?;

            model.w1 = result::malloc_sync(w1.len() * f)?;
            model.w2 = result::malloc_sync(w2.len() * f)?;
            model.prototype = result::malloc_sync(prototype.len() * f)?;
            model.x = result::malloc_sync(d_in * batch * f)?;
            model.hidden = result::malloc_sync(d_hidden * batch * f)?;
            model.logits = result::malloc_sync(classes * batch * f)?;
            model.x_host = result::malloc_host(d_in * batch * f, 0)? as *mut f32;
            model.logits_host = result::malloc_host(classes * batch * f, 0)? as *mut f32;

            // Parameters go up through one temporary staging buffer.
            let staging = result::malloc_host(param_len * f, 0)? as *mut f32;
            let _release = Staging(staging as *mut c_void);
            let params = std::slice::from_raw_parts_mut(staging, param_len);
            params[..w1.len()].copy_from_slice(w1);
            params[w1.len()..w1.len() + w2.len()].copy_from_slice(w2);
            params[w1.len() + w2.len()..].copy_from_slice(prototype);
            let s = model.stream.cu_stream();
            sys::cuMemcpyHtoDAsync_v2(model.w1, staging as *const c_void, w1.len() * f, s).result()?;
            sys::cuMemcpyHtoDAsync_v2(
                model.w2,
                staging.add(w1.len()) as *const c_void,
                w2.len() * f,
                s,
            )
            .result()?;
            sys::cuMemcpyHtoDAsync_v2(
                model.prototype,
                staging.add(w1.len() + w2.len()) as *const c_void,
                prototype.len() * f,
                s,
            )
            .result()?;
            model.stream.synchronize()?;
        }
        Ok(model)
    }

    /// Classifies one batch (`d_in x batch` column-major) and returns `classes x batch` logits.
    pub fn forward(&mut self, input: &[f32]) -> Result<Vec<f32>> {
        assert_eq!(input.len(), self.d_in * self.batch);
        let f = std::mem::size_of::<f32>();
        let s = self.stream.cu_stream();
        let one = 1.0f32;
        let zero = 0.0f32;
        let hidden_len = (self.d_hidden * self.batch) as i32;
        let logits_len = self.classes * self.batch;
        unsafe {
            std::slice::from_raw_parts_mut(self.x_host, input.len()).copy_from_slice(input);
            sys::cuMemcpyHtoDAsync_v2(self.x, self.x_host as *const c_void, input.len() * f, s)
                .result()?;
            blas::cublasSgemm_v2(
                self.handle,
                blas::cublasOperation_t::CUBLAS_OP_N,
                blas::cublasOperation_t::CUBLAS_OP_N,
                self.d_hidden as i32,
                self.batch as i32,
                self.d_in as i32,
                &one,
                self.w1 as *const f32,
                self.d_hidden as i32,
                self.x as *const f32,
                self.d_in as i32,
                &zero,
                self.hidden as *mut f32,
                self.d_hidden as i32,
            )
            .result()?;
        }

        let mut launch = self.stream.launch_builder(&self.relu);
        launch.arg(&self.hidden).arg(&hidden_len);
        unsafe { launch.launch(LaunchConfig::for_num_elems(hidden_len as u32)) }?;

        unsafe {
            blas::cublasSgemm_v2(
                self.handle,
                blas::cublasOperation_t::CUBLAS_OP_N,
                blas::cublasOperation_t::CUBLAS_OP_N,
                self.classes as i32,
                self.batch as i32,
                self.d_hidden as i32,
                &one,
                self.w2 as *const f32,
                self.classes as i32,
                self.hidden as *const f32,
                self.d_hidden as i32,
                &zero,
                self.logits as *mut f32,
                self.classes as i32,
            )
            .result()?;
            sys::cuMemcpyDtoHAsync_v2(self.logits_host as *mut c_void, self.logits, logits_len * f, s)
                .result()?;
        }
        self.stream.synchronize()?;
        Ok(unsafe { std::slice::from_raw_parts(self.logits_host, logits_len) }.to_vec())
    }

    /// Dot product of sample `column`'s logits (from the last `forward`) with the prototype.
    pub fn prototype_score(&self, column: usize) -> Result<f32> {
        assert!(column < self.batch);
        let offset = (column * self.classes * std::mem::size_of::<f32>()) as sys::CUdeviceptr;
        let mut score = 0.0f32;
        unsafe {
            blas::cublasSdot_v2(
                self.handle,
                self.classes as i32,
                (self.logits + offset) as *const f32,
                1,
                self.prototype as *const f32,
                1,
                &mut score,
            )
            .result()?;
        }
        Ok(score)
    }
}

impl Drop for Classifier {
    fn drop(&mut self) {
        unsafe {
            let _ = self.stream.synchronize();
            if self.w1 != 0 {
                let _ = result::free_sync(self.w1);
            }
            if self.w2 != 0 {
                let _ = result::free_sync(self.w2);
            }
            if self.prototype != 0 {
                let _ = result::free_sync(self.prototype);
            }
            if self.x != 0 {
                let _ = result::free_sync(self.x);
            }
            if self.hidden != 0 {
                let _ = result::free_sync(self.hidden);
            }
            if self.logits != 0 {
                let _ = result::free_sync(self.logits);
            }
            if !self.x_host.is_null() {
                let _ = result::free_host(self.x_host as *mut c_void);
            }
            if !self.logits_host.is_null() {
                let _ = result::free_host(self.logits_host as *mut c_void);
            }
            if !self.handle.is_null() {
                let _ = blas::cublasDestroy_v2(self.handle);
            }
        }
    }
}

/// Classifies every batch and scores each sample against the prototype.
pub fn classify_with_prototype(
    w1: &[f32],
    w2: &[f32],
    prototype: &[f32],
    d_in: usize,
    d_hidden: usize,
    classes: usize,
    batch: usize,
    batches: &[Vec<f32>],
) -> Result<Vec<(Vec<f32>, Vec<f32>)>> {
    let ctx = CudaContext::new(0)?;
    let mut model = Classifier::new(ctx, w1, w2, prototype, d_in, d_hidden, classes, batch)?;
    let mut results = Vec::with_capacity(batches.len());
    for input in batches {
        let logits = model.forward(input)?;
        let mut scores = Vec::with_capacity(batch);
        for column in 0..batch {
            scores.push(model.prototype_score(column)?);
        }
        results.push((logits, scores));
    }
    Ok(results)
}
