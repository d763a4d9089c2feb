//! The CUDA libraries whose routines are work on a stream (cuBLAS, cuBLASLt, cuFFT, cuRAND,
//! cuDNN, NCCL): through raw bindings their C functions are the shared table's
//! (`lint/c-api/src/libraries.rs`, through [`super::c_functions`]), found in cudarc's `sys`
//! modules or a crate's own `extern "C"` block; cudarc's safe cuBLAS (`CudaBlas`, a handle
//! bound to the stream it was made with) is this family's own table.

use super::Effect::*;
use super::{ApiFamily, LibraryStream, ObjKind, Target, f, handle};

/// `cudarc::cublas::safe::NAME`.
macro_rules! blas {
    ($name:literal) => {
        concat!("cudarc::cublas::safe::", $name)
    };
}

/// `cudarc::cublas::result::NAME`: the C functions with `Result`s, arguments in the C order.
macro_rules! blas_result {
    ($name:literal) => {
        concat!("cudarc::cublas::result::", $name)
    };
}

/// A routine of `cudarc::cublas::result` on the handle in argument 0, its arguments the C
/// function's.
const fn raw(
    reads: &'static [super::Arg],
    writes: &'static [super::Arg],
    result: Option<super::Arg>,
) -> [super::Effect; 1] {
    [LibraryWork {
        on: LibraryStream::Handle(0),
        reads,
        writes,
        result,
    }]
}

/// A routine of `CudaBlas` (`self` is argument 0) reading `reads` and writing `writes`, with
/// cudarc's event tracking on its slices.
const fn routine(reads: &'static [super::Arg], writes: &'static [super::Arg]) -> [super::Effect; 2] {
    [
        LibraryWork {
            on: LibraryStream::Handle(0),
            reads,
            writes,
            result: None,
        },
        super::cudarc_safe::TRACKED,
    ]
}

pub static FAMILY: ApiFamily = ApiFamily {
    name: "cuda-libraries",
    // Not used: a library call leaves the advice of the CUDA API in use ([`ApiFamily::advises`]).
    advice: super::Advice {
        pinned: "",
        pinned_readback: "",
        sync_stream: "",
        order_streams: "",
        copy_to_host: "",
        copy_to_device: "",
        sync_statement: None,
        error_type: "",
    },
    crates: &["cudarc"],
    functions: &[
        f(blas!("CudaBlas::new"), &[NewHandle { stream: 0 }]),
        f(
            blas!("CudaBlas::set_stream"),
            &[SetHandleStream { handle: 0, stream: 1 }],
        ),
        f(blas!("CudaBlas::handle"), &[Derive(0)]),
        f(
            blas!("CudaBlas::set_pointer_mode"),
            &[SetPointerMode { handle: 0, mode: 1 }],
        ),
        f(blas!("CudaBlas::get_pointer_mode"), &[NoAccess]),
        // `cudarc::cublas::result`: a handle made with none runs on the legacy stream.
        f(blas_result!("create_handle"), &[NewHandle { stream: super::LEGACY }]),
        f(blas_result!("set_stream"), &[SetHandleStream { handle: 0, stream: 1 }]),
        f(blas_result!("destroy_handle"), &[NoAccess]),
        f(blas_result!("sgemv"), &raw(&[5, 7], &[10], None)),
        f(blas_result!("dgemv"), &raw(&[5, 7], &[10], None)),
        f(blas_result!("sgemm"), &raw(&[7, 9], &[12], None)),
        f(blas_result!("dgemm"), &raw(&[7, 9], &[12], None)),
        f(blas_result!("sgemm_strided_batched"), &raw(&[7, 10], &[14], None)),
        f(blas_result!("dgemm_strided_batched"), &raw(&[7, 10], &[14], None)),
        f(blas_result!("gemm_ex"), &raw(&[7, 10], &[14], None)),
        f(blas_result!("gemm_strided_batched_ex"), &raw(&[7, 11], &[16], None)),
        f(blas_result!("sasum"), &raw(&[2], &[], Some(4))),
        f(blas_result!("dasum"), &raw(&[2], &[], Some(4))),
        // `gemm(&self, cfg, a, b, c)`, `gemm_strided_batched(&self, cfg, a, b, c)`.
        f(blas!("gemm::Gemm::gemm"), &routine(&[2, 3], &[4])),
        f(blas!("gemm::Gemm::gemm_strided_batched"), &routine(&[2, 3], &[4])),
        // `gemv(&self, cfg, a, x, y)`.
        f(blas!("gemv::Gemv::gemv"), &routine(&[2, 3], &[4])),
        // `asum(&self, cfg, x, result)`: the result is device memory.
        f(blas!("asum::Asum::asum"), &routine(&[2], &[3])),
    ],
    types: &[handle(blas!("CudaBlas"), Target::Obj(ObjKind::LibraryHandle), None)],
    symbol_modules: &[
        "cudarc::cublas::sys",
        "cudarc::cublaslt::sys",
        "cudarc::cufft::sys",
        "cudarc::curand::sys",
        "cudarc::cudnn::sys",
        "cudarc::nccl::sys",
    ],
};
