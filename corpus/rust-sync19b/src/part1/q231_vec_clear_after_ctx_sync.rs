//! case: an MLP keeps its hidden activations in a `Vec<RawBuf>` and clears it only after a context synchronize (`cuCtxSynchronize`)
//! expect: none

use std::error::Error;
use std::ffi::c_void;

use cudarc::driver::{result, sys, CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void dense_relu(const float* in, const float* w, const float* b,
                                      float* out, int in_dim, int out_dim, int relu) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= out_dim) return;
    float acc = b[o];
    for (int k = 0; k < in_dim; ++k) {
        acc += w[o * in_dim + k] * in[k];
    }
    out[o] = (relu && acc < 0.0f) ? 0.0f : acc;
}
"#;

pub struct RawBuf {
    ptr: sys::CUdeviceptr,
    len: usize,
}

impl RawBuf {
    pub fn alloc(len: usize) -> Result<Self, DriverError> {
        let ptr = unsafe { result::malloc_sync(len * std::mem::size_of::<f32>())? };
        Ok(Self { ptr, len })
    }

    pub fn upload(data: &[f32]) -> Result<Self, DriverError> {
        let buf = Self::alloc(data.len())?;
        unsafe { result::memcpy_htod_sync(buf.ptr, data)? };
        Ok(buf)
    }
}

impl Drop for RawBuf {
    fn drop(&mut self) {
        unsafe {
            let _ = result::free_sync(self.ptr);
        }
    }
}

pub struct Dense {
    pub weights: Vec<f32>,
    pub bias: Vec<f32>,
    pub in_dim: usize,
    pub out_dim: usize,
}

pub fn mlp_forward_drained(layers: &[Dense], input: &[f32]) -> Result<Vec<f32>, Box<dyn Error>> {
    assert!(!layers.is_empty() && layers[0].in_dim == input.len());
    for pair in layers.windows(2) {
        assert_eq!(pair[0].out_dim, pair[1].in_dim);
    }
    for l in layers {
        assert_eq!(l.weights.len(), l.in_dim * l.out_dim);
        assert_eq!(l.bias.len(), l.out_dim);
    }

    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let dense = module.load_function("dense_relu")?;

    let mut params: Vec<(RawBuf, RawBuf)> = Vec::with_capacity(layers.len());
    for l in layers {
        params.push((RawBuf::upload(&l.weights)?, RawBuf::upload(&l.bias)?));
    }
    let out_dim = layers[layers.len() - 1].out_dim;
    let out = RawBuf::alloc(out_dim)?;

    // acts[0] is the input, acts[i] the input of layer i
    let mut acts: Vec<RawBuf> = vec![RawBuf::upload(input)?];
    for l in &layers[..layers.len() - 1] {
        acts.push(RawBuf::alloc(l.out_dim)?);
    }

    let queued = (|| -> Result<(), DriverError> {
        for (i, l) in layers.iter().enumerate() {
            let last = i + 1 == layers.len();
            let mut src = acts[i].ptr;
            let mut dst = if last { out.ptr } else { acts[i + 1].ptr };
            let mut w = params[i].0.ptr;
            let mut b = params[i].1.ptr;
            let mut in_dim = l.in_dim as i32;
            let mut o_dim = l.out_dim as i32;
            let mut relu = (!last) as i32;
            let mut args: [*mut c_void; 7] = [
                &mut src as *mut _ as *mut c_void,
                &mut w as *mut _ as *mut c_void,
                &mut b as *mut _ as *mut c_void,
                &mut dst as *mut _ as *mut c_void,
                &mut in_dim as *mut _ as *mut c_void,
                &mut o_dim as *mut _ as *mut c_void,
                &mut relu as *mut _ as *mut c_void,
            ];
            unsafe {
                result::launch_kernel(
                    dense.cu_function(),
                    ((l.out_dim as u32).div_ceil(64), 1, 1),
                    (64, 1, 1),
                    0,
                    stream.cu_stream(),
                    &mut args,
                )?;
            }
        }
        Ok(())
    })();
    let waited = result::ctx::synchronize();
    queued?;
    waited?;
    // every layer has run: the hidden activations are dead
    acts.clear();

    let mut host = vec![0.0f32; out.len];
    unsafe { result::memcpy_dtoh_sync(&mut host, out.ptr)? };
    Ok(host)
}
