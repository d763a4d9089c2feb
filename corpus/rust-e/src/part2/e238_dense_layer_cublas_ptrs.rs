//! case: near-miss of a host dereference: a dense layer keeps raw cudaMalloc pointers, offsets them with pointer arithmetic to address the bias slice and per-sample outputs, and only ever hands them to cuBLAS and to blocking cudaMemcpy calls (everything on the legacy default stream)
//! expect: none

use std::ffi::c_void;

use cudarc::cublas::sys as blas;
use cudarc::runtime::result::{self as rt, RuntimeError};

#[derive(Debug)]
pub enum LayerError {
    Cuda(RuntimeError),
    Blas(cudarc::cublas::result::CublasError),
}

impl From<RuntimeError> for LayerError {
    fn from(e: RuntimeError) -> Self {
        LayerError::Cuda(e)
    }
}

impl From<cudarc::cublas::result::CublasError> for LayerError {
    fn from(e: cudarc::cublas::result::CublasError) -> Self {
        LayerError::Blas(e)
    }
}

/// Weights `[out x in]` followed by the bias `[out]` in one allocation.
pub struct DenseLayer {
    params: *mut c_void,
    inputs: usize,
    outputs: usize,
    blas: blas::cublasHandle_t,
}

impl DenseLayer {
    pub fn load(weights: &[f32], bias: &[f32], inputs: usize, outputs: usize) -> Result<Self, LayerError> {
        assert_eq!(weights.len(), inputs * outputs);
        assert_eq!(bias.len(), outputs);
        let params = unsafe { rt::malloc_sync((inputs * outputs + outputs) * 4)? };
        unsafe {
            rt::memcpy_htod_sync(params, weights)?;
            rt::memcpy_htod_sync(Self::bias_ptr_of(params, inputs, outputs) as *mut c_void, bias)?;
        }
        let mut handle: blas::cublasHandle_t = std::ptr::null_mut();
        unsafe { blas::cublasCreate_v2(&mut handle).result()? };
        Ok(Self { params, inputs, outputs, blas: handle })
    }

    fn bias_ptr_of(params: *mut c_void, inputs: usize, outputs: usize) -> *mut f32 {
        (params as *mut f32).wrapping_add(inputs * outputs)
    }

    /// `y[b] = W x[b] + bias` for a column-major batch; returns the outputs on the host.
    pub fn forward(&self, x_host: &[f32], batch: usize) -> Result<Vec<f32>, LayerError> {
        assert_eq!(x_host.len(), batch * self.inputs);
        let x = unsafe { rt::malloc_sync(x_host.len() * 4)? };
        let y = unsafe { rt::malloc_sync(batch * self.outputs * 4)? };
        unsafe {
            rt::memcpy_htod_sync(x, x_host)?;
            // seed every output column with the bias, then accumulate W x on top (beta = 1)
            let bias = Self::bias_ptr_of(self.params, self.inputs, self.outputs);
            for b in 0..batch {
                let col = (y as *mut f32).wrapping_add(b * self.outputs);
                rt::memcpy_dtod_sync(col as *mut c_void, bias as *const c_void, self.outputs * 4)?;
            }
            let (alpha, beta) = (1.0f32, 1.0f32);
            let (m, n, k) = (self.outputs as i32, batch as i32, self.inputs as i32);
            blas::cublasSgemm_v2(
                self.blas,
                blas::cublasOperation_t::CUBLAS_OP_T,
                blas::cublasOperation_t::CUBLAS_OP_N,
                m, n, k,
                &alpha,
                self.params as *const f32, k,
                x as *const f32, k,
                &beta,
                y as *mut f32, m,
            )
            .result()?;
        }
        let mut out = vec![0.0f32; batch * self.outputs];
        unsafe {
            rt::memcpy_dtoh_sync(&mut out, y)?;
            rt::free_sync(x)?;
            rt::free_sync(y)?;
        }
        Ok(out)
    }
}

impl Drop for DenseLayer {
    fn drop(&mut self) {
        unsafe {
            let _ = blas::cublasDestroy_v2(self.blas);
            let _ = rt::free_sync(self.params);
        }
    }
}
