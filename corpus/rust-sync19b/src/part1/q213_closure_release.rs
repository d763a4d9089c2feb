//! case: C-style cleanup through a `release` closure around `free_sync`; the embedding table is released right after the lookup kernel is enqueued
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::c_void;

use cudarc::driver::{result, sys, CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void embed(const int* tokens, const float* table, float* out, int n, int dim) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n * dim) return;
    int t = i / dim, d = i % dim;
    out[i] = table[tokens[t] * dim + d];
}
"#;

/// Allocates every size or nothing.
fn alloc_all(sizes: &[usize]) -> Result<Vec<sys::CUdeviceptr>, DriverError> {
    let mut out = Vec::with_capacity(sizes.len());
    for &bytes in sizes {
        match unsafe { result::malloc_sync(bytes) } {
            Ok(p) => out.push(p),
            Err(e) => {
                for &p in &out {
                    unsafe {
                        let _ = result::free_sync(p);
                    }
                }
                return Err(e);
            }
        }
    }
    Ok(out)
}

pub fn embed_tokens(tokens: &[i32], table: &[f32], dim: usize) -> Result<Vec<f32>, Box<dyn Error>> {
    let vocab = table.len() / dim;
    if tokens.iter().any(|&t| t < 0 || t as usize >= vocab) {
        return Err("token outside the vocabulary".into());
    }
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let cs = stream.cu_stream();
    let func = ctx.load_module(compile_ptx(SRC)?)?.load_function("embed")?;

    let n = tokens.len();
    let ptrs = alloc_all(&[std::mem::size_of_val(tokens), std::mem::size_of_val(table), n * dim * 4])?;
    let (d_tok, d_table, d_out) = (ptrs[0], ptrs[1], ptrs[2]);
    let release = |p: sys::CUdeviceptr| unsafe { result::free_sync(p) };

    let enqueue = || -> Result<(), DriverError> {
        unsafe {
            result::memcpy_htod_sync(d_tok, tokens)?;
            result::memcpy_htod_sync(d_table, table)?;
        }
        let (mut t, mut tb, mut o) = (d_tok, d_table, d_out);
        let (mut n_i, mut dim_i) = (n as i32, dim as i32);
        let mut args: [*mut c_void; 5] = [
            &mut t as *mut _ as *mut c_void,
            &mut tb as *mut _ as *mut c_void,
            &mut o as *mut _ as *mut c_void,
            &mut n_i as *mut _ as *mut c_void,
            &mut dim_i as *mut _ as *mut c_void,
        ];
        let total = (n * dim) as u32;
        unsafe { result::launch_kernel(func.cu_function(), (total.div_ceil(256), 1, 1), (256, 1, 1), 0, cs, &mut args) }
    };

    let status = enqueue();
    let freed_table = release(d_table); // EXPECT: relies_on_implicit_sync
    let waited = unsafe { result::stream::synchronize(cs) };

    let mut out = vec![0.0f32; n * dim];
    let copied = status.and(waited).and_then(|_| unsafe { result::memcpy_dtoh_sync(&mut out, d_out) });
    let freed_rest = release(d_tok).and(release(d_out));
    copied?;
    freed_table?;
    freed_rest?;
    Ok(out)
}
