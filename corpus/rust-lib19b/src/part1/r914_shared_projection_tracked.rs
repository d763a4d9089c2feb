//! Query and key projections of a retrieval model through one shared projection matrix.
//! Queries are normalized and projected on one stream, keys on another; one `CudaBlas`
//! handle is moved between the two streams with `set_stream`. cudarc's event tracking
//! (on by default, and active since the context has several streams) orders the buffers
//! the two streams share.

use std::error::Error;

use cudarc::cublas::{sys as blas, CudaBlas, Gemm, GemmConfig};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const L2_NORMALIZE_SRC: &str = r#"
// v is dim x count, column-major; every column is scaled to unit length.
extern "C" __global__ void l2_normalize_columns(float* v, int dim, int count) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= count) return;
    float* col = v + (size_t)c * dim;
    float s = 0.0f;
    for (int k = 0; k < dim; ++k) s += col[k] * col[k];
    float inv = s > 0.0f ? rsqrtf(s) : 0.0f;
    for (int k = 0; k < dim; ++k) col[k] *= inv;
}
"#;

pub struct Projections {
    pub queries: Vec<f32>,
    pub keys: Vec<f32>,
}

/// `proj` is `out_dim x dim`; `queries` and `keys` are `dim x count` column-major.
pub fn project_queries_and_keys(
    proj: &[f32],
    queries: &[f32],
    keys: &[f32],
    out_dim: usize,
    dim: usize,
) -> Result<Projections> {
    assert_eq!(proj.len(), out_dim * dim);
    assert!(queries.len() % dim == 0 && keys.len() % dim == 0);
    let nq = queries.len() / dim;
    let nk = keys.len() / dim;

    let ctx = CudaContext::new(0)?;
    let query_stream = ctx.new_stream()?;
    let key_stream = ctx.new_stream()?;
    let mut blas = CudaBlas::new(query_stream.clone())?;
    let normalize = ctx
        .load_module(compile_ptx(L2_NORMALIZE_SRC)?)?
        .load_function("l2_normalize_columns")?;

    let mut proj_stage = unsafe { ctx.alloc_pinned::<f32>(proj.len())? };
    proj_stage.as_mut_slice()?.copy_from_slice(proj);
    let mut q_stage = unsafe { ctx.alloc_pinned::<f32>(queries.len())? };
    q_stage.as_mut_slice()?.copy_from_slice(queries);
    let mut k_stage = unsafe { ctx.alloc_pinned::<f32>(keys.len())? };
    k_stage.as_mut_slice()?.copy_from_slice(keys);

    // The projection is uploaded on the key stream and read by both streams.
    let mut w = unsafe { key_stream.alloc::<f32>(proj.len())? };
    key_stream.memcpy_htod(&proj_stage, &mut w)?;

    let mut q = unsafe { query_stream.alloc::<f32>(queries.len())? };
    query_stream.memcpy_htod(&q_stage, &mut q)?;
    let mut k = unsafe { key_stream.alloc::<f32>(keys.len())? };
    key_stream.memcpy_htod(&k_stage, &mut k)?;
    let mut q_proj = unsafe { query_stream.alloc::<f32>(out_dim * nq)? };
    let mut k_proj = unsafe { key_stream.alloc::<f32>(out_dim * nk)? };

    let d = dim as i32;
    let (nq_i, nk_i) = (nq as i32, nk as i32);
    let mut launch = query_stream.launch_builder(&normalize);
    launch.arg(&mut q).arg(&d).arg(&nq_i);
    unsafe { launch.launch(LaunchConfig::for_num_elems(nq as u32)) }?;
    let mut launch = key_stream.launch_builder(&normalize);
    launch.arg(&mut k).arg(&d).arg(&nk_i);
    unsafe { launch.launch(LaunchConfig::for_num_elems(nk as u32)) }?;

    let cfg = |cols: i32| GemmConfig {
        transa: blas::cublasOperation_t::CUBLAS_OP_N,
        transb: blas::cublasOperation_t::CUBLAS_OP_N,
        m: out_dim as i32,
        n: cols,
        k: d,
        alpha: 1.0f32,
        lda: out_dim as i32,
        ldb: d,
        beta: 0.0f32,
        ldc: out_dim as i32,
    };
    unsafe { blas.gemm(cfg(nq_i), &w, &q, &mut q_proj) }?;
    unsafe { blas.set_stream(key_stream.clone())? };
    unsafe { blas.gemm(cfg(nk_i), &w, &k, &mut k_proj) }?;

    let mut q_host = unsafe { ctx.alloc_pinned_with_flags::<f32>(out_dim * nq, 0)? };
    let mut k_host = unsafe { ctx.alloc_pinned_with_flags::<f32>(out_dim * nk, 0)? };
    query_stream.memcpy_dtoh(&q_proj, &mut q_host)?;
    key_stream.memcpy_dtoh(&k_proj, &mut k_host)?;
    query_stream.synchronize()?;
    key_stream.synchronize()?;

    Ok(Projections {
        queries: q_host.as_slice()?.to_vec(),
        keys: k_host.as_slice()?.to_vec(),
    })
}
