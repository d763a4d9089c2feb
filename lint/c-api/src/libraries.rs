//! The CUDA libraries whose routines are work on a stream, as a kernel is: cuBLAS (with the
//! `_v2` names `cublas_v2.h` maps the plain ones to), cuBLASLt, cuFFT, cuRAND's host API, cuDNN
//! and NCCL. A handle (`cublasCreate`) runs its routines on the legacy default stream until
//! its stream is set (`cublasSetStream`); NCCL and `cublasLtMatmul` take the stream as an
//! argument. Argument positions follow the libraries' C headers (cuBLAS 12, cuDNN 9, NCCL 2).

use crate::Effect::*;
use crate::On::{Handle, Stream};
use crate::{Dir, Family, Function};

const fn lib(names: &'static [&'static str], arity: usize, effects: &'static [crate::Effect]) -> Function {
    crate::function(Family::Library, names, arity, effects)
}

/// A routine on the stream of the handle in argument 0.
const fn on_handle(reads: &'static [usize], writes: &'static [usize]) -> [crate::Effect; 1] {
    [LibraryWork {
        on: Handle(0),
        reads,
        writes,
        result: None,
    }]
}

/// A reduction on the handle in argument 0 whose scalar result goes where `result` points: a
/// host variable in host pointer mode (the default; the call returns once it is written),
/// device memory written on the stream in device pointer mode.
const fn reduction(reads: &'static [usize], result: usize) -> [crate::Effect; 1] {
    [LibraryWork {
        on: Handle(0),
        reads,
        writes: &[],
        result: Some(result),
    }]
}

/// A routine on the stream in argument `stream`.
const fn on_stream(stream: usize, reads: &'static [usize], writes: &'static [usize]) -> [crate::Effect; 1] {
    [LibraryWork {
        on: Stream(stream),
        reads,
        writes,
        result: None,
    }]
}

/// A copy of the library's own (`cublasSetMatrix`): blocking on the legacy stream without a
/// stream argument.
const fn copy(dst: usize, src: usize, dir: Dir, stream: Option<usize>) -> crate::Effect {
    Copy {
        dst,
        src,
        kind: None,
        dir,
        stream,
    }
}

const HANDLE_OUT_0: &[crate::Effect] = &[HandleOut { out: 0 }];
const SET_STREAM: &[crate::Effect] = &[SetHandleStream { handle: 0, stream: 1 }];

pub(crate) static FUNCTIONS: &[Function] = &[
    // cuBLAS. `cublasCreate(&handle)`, `cublasSetStream(handle, stream)`.
    lib(&["cublasCreate", "cublasCreate_v2"], 1, HANDLE_OUT_0),
    lib(&["cublasSetStream", "cublasSetStream_v2"], 2, SET_STREAM),
    lib(
        &["cublasSetPointerMode", "cublasSetPointerMode_v2"],
        2,
        &[SetPointerMode { handle: 0, mode: 1 }],
    ),
    lib(
        &[
            "cublasDestroy",
            "cublasDestroy_v2",
            "cublasGetStream",
            "cublasGetStream_v2",
            "cublasGetPointerMode",
            "cublasGetPointerMode_v2",
            "cublasSetMathMode",
            "cublasGetMathMode",
            "cublasSetWorkspace",
            "cublasSetWorkspace_v2",
            "cublasSetAtomicsMode",
            "cublasGetVersion",
            "cublasGetVersion_v2",
        ],
        3,
        &[NoAccess],
    ),
    // cuBLAS's own copies: `cublasSetMatrix(rows, cols, elemSize, A, lda, B, ldb)` from host A to
    // device B, `cublasGetMatrix` the other way, `cublasSetVector(n, elemSize, x, incx, y,
    // incy)`, `cublasGetVector`: blocking, on the legacy stream; the `Async` forms take a stream
    // last.
    lib(&["cublasSetMatrix"], 7, &[copy(5, 3, Dir::HostToDevice, None)]),
    lib(&["cublasGetMatrix"], 7, &[copy(5, 3, Dir::DeviceToHost, None)]),
    lib(&["cublasSetVector"], 6, &[copy(4, 2, Dir::HostToDevice, None)]),
    lib(&["cublasGetVector"], 6, &[copy(4, 2, Dir::DeviceToHost, None)]),
    lib(&["cublasSetMatrixAsync"], 8, &[copy(5, 3, Dir::HostToDevice, Some(7))]),
    lib(&["cublasGetMatrixAsync"], 8, &[copy(5, 3, Dir::DeviceToHost, Some(7))]),
    lib(&["cublasSetVectorAsync"], 7, &[copy(4, 2, Dir::HostToDevice, Some(6))]),
    lib(&["cublasGetVectorAsync"], 7, &[copy(4, 2, Dir::DeviceToHost, Some(6))]),
    // `gemm(h, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)`: C is written
    // (read too where beta is not zero, which the analysis does not know: not taken as a read).
    lib(
        &[
            "cublasSgemm",
            "cublasSgemm_v2",
            "cublasDgemm",
            "cublasDgemm_v2",
            "cublasCgemm",
            "cublasCgemm_v2",
            "cublasZgemm",
            "cublasZgemm_v2",
            "cublasHgemm",
        ],
        14,
        &on_handle(&[7, 9], &[12]),
    ),
    // `(h, ta, tb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, compute, algo)`.
    lib(&["cublasGemmEx"], 19, &on_handle(&[7, 10], &[14])),
    // `(h, ta, tb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, count)`.
    lib(
        &[
            "cublasSgemmStridedBatched",
            "cublasDgemmStridedBatched",
            "cublasHgemmStridedBatched",
            "cublasCgemmStridedBatched",
            "cublasZgemmStridedBatched",
        ],
        18,
        &on_handle(&[7, 10], &[14]),
    ),
    // `(h, ta, tb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C, ...)`.
    lib(&["cublasGemmStridedBatchedEx"], 23, &on_handle(&[7, 11], &[16])),
    // `(h, ta, tb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, count)`: the
    // arrays of pointers are read; what they point to is not followed.
    lib(
        &["cublasSgemmBatched", "cublasDgemmBatched", "cublasHgemmBatched"],
        15,
        &on_handle(&[7, 9, 12], &[]),
    ),
    // `gemv(h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy)`.
    lib(
        &["cublasSgemv", "cublasSgemv_v2", "cublasDgemv", "cublasDgemv_v2"],
        12,
        &on_handle(&[5, 7], &[10]),
    ),
    // `axpy(h, n, alpha, x, incx, y, incy)`: y is read and written.
    lib(
        &["cublasSaxpy", "cublasSaxpy_v2", "cublasDaxpy", "cublasDaxpy_v2"],
        7,
        &on_handle(&[3], &[5]),
    ),
    // `scal(h, n, alpha, x, incx)`.
    lib(
        &["cublasSscal", "cublasSscal_v2", "cublasDscal", "cublasDscal_v2"],
        5,
        &on_handle(&[], &[3]),
    ),
    // `copy(h, n, x, incx, y, incy)`; `swap` writes both.
    lib(
        &["cublasScopy", "cublasScopy_v2", "cublasDcopy", "cublasDcopy_v2"],
        6,
        &on_handle(&[2], &[4]),
    ),
    lib(
        &["cublasSswap", "cublasSswap_v2", "cublasDswap", "cublasDswap_v2"],
        6,
        &on_handle(&[], &[2, 4]),
    ),
    // `geam(h, ta, tb, m, n, alpha, A, lda, beta, B, ldb, C, ldc)`.
    lib(&["cublasSgeam", "cublasDgeam"], 13, &on_handle(&[6, 9], &[11])),
    // `ger(h, m, n, alpha, x, incx, y, incy, A, lda)`.
    lib(
        &["cublasSger", "cublasSger_v2", "cublasDger", "cublasDger_v2"],
        10,
        &on_handle(&[4, 6], &[8]),
    ),
    // `trsm(h, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb)`: B is solved in place.
    lib(
        &["cublasStrsm", "cublasStrsm_v2", "cublasDtrsm", "cublasDtrsm_v2"],
        12,
        &on_handle(&[8], &[10]),
    ),
    // `symm(h, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc)`.
    lib(
        &["cublasSsymm", "cublasSsymm_v2", "cublasDsymm", "cublasDsymm_v2"],
        13,
        &on_handle(&[6, 8], &[11]),
    ),
    // `syrk(h, uplo, trans, n, k, alpha, A, lda, beta, C, ldc)`.
    lib(
        &["cublasSsyrk", "cublasSsyrk_v2", "cublasDsyrk", "cublasDsyrk_v2"],
        11,
        &on_handle(&[6], &[9]),
    ),
    // `dot(h, n, x, incx, y, incy, result)`.
    lib(
        &["cublasSdot", "cublasSdot_v2", "cublasDdot", "cublasDdot_v2"],
        7,
        &reduction(&[2, 4], 6),
    ),
    // `nrm2(h, n, x, incx, result)`, `asum`, `amax`, `amin`.
    lib(
        &[
            "cublasSnrm2",
            "cublasSnrm2_v2",
            "cublasDnrm2",
            "cublasDnrm2_v2",
            "cublasSasum",
            "cublasSasum_v2",
            "cublasDasum",
            "cublasDasum_v2",
            "cublasIsamax",
            "cublasIsamax_v2",
            "cublasIdamax",
            "cublasIdamax_v2",
            "cublasIsamin",
            "cublasIsamin_v2",
            "cublasIdamin",
            "cublasIdamin_v2",
        ],
        5,
        &reduction(&[2], 4),
    ),
    // cuBLASLt: `cublasLtMatmul(lt, desc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc,
    // algo, workspace, workspaceSize, stream)`.
    lib(&["cublasLtMatmul"], 16, &on_stream(15, &[3, 5], &[10, 13])),
    lib(
        &[
            "cublasLtCreate",
            "cublasLtDestroy",
            "cublasLtMatmulDescCreate",
            "cublasLtMatmulDescDestroy",
            "cublasLtMatmulDescSetAttribute",
            "cublasLtMatrixLayoutCreate",
            "cublasLtMatrixLayoutDestroy",
            "cublasLtMatmulPreferenceCreate",
            "cublasLtMatmulPreferenceDestroy",
            "cublasLtMatmulPreferenceSetAttribute",
            "cublasLtMatmulAlgoGetHeuristic",
        ],
        8,
        &[NoAccess],
    ),
    // cuFFT: a plan is a handle. `cufftPlan1d(&plan, nx, type, batch)`, `cufftCreate(&plan)`.
    lib(
        &[
            "cufftPlan1d",
            "cufftPlan2d",
            "cufftPlan3d",
            "cufftPlanMany",
            "cufftCreate",
        ],
        11,
        HANDLE_OUT_0,
    ),
    lib(&["cufftSetStream"], 2, SET_STREAM),
    lib(
        &[
            "cufftDestroy",
            "cufftMakePlan1d",
            "cufftMakePlan2d",
            "cufftMakePlan3d",
            "cufftMakePlanMany",
            "cufftGetSize",
            "cufftSetAutoAllocation",
            "cufftSetWorkArea",
        ],
        13,
        &[NoAccess],
    ),
    // `cufftExecC2C(plan, idata, odata, direction)`; the real transforms take no direction.
    lib(&["cufftExecC2C", "cufftExecZ2Z"], 4, &on_handle(&[1], &[2])),
    lib(
        &["cufftExecR2C", "cufftExecC2R", "cufftExecD2Z", "cufftExecZ2D"],
        3,
        &on_handle(&[1], &[2]),
    ),
    // cuRAND's host API: `curandCreateGenerator(&gen, type)`; generation on the device writes
    // `out` on the generator's stream. A host generator (`curandCreateGeneratorHost`) works on
    // the host: not modelled.
    lib(&["curandCreateGenerator"], 2, HANDLE_OUT_0),
    lib(&["curandSetStream"], 2, SET_STREAM),
    lib(
        &[
            "curandCreateGeneratorHost",
            "curandDestroyGenerator",
            "curandSetPseudoRandomGeneratorSeed",
            "curandSetGeneratorOffset",
            "curandSetGeneratorOrdering",
        ],
        2,
        &[NoAccess],
    ),
    // `curandGenerate(gen, out, n)`, `curandGenerateUniform(gen, out, n)`,
    // `curandGenerateNormal(gen, out, n, mean, stddev)`.
    lib(
        &[
            "curandGenerate",
            "curandGenerateUniform",
            "curandGenerateUniformDouble",
            "curandGenerateNormal",
            "curandGenerateNormalDouble",
            "curandGenerateLogNormal",
            "curandGenerateLogNormalDouble",
        ],
        5,
        &on_handle(&[], &[1]),
    ),
    // cuDNN. `cudnnCreate(&handle)`, `cudnnSetStream(handle, stream)`.
    lib(&["cudnnCreate"], 1, HANDLE_OUT_0),
    lib(&["cudnnSetStream"], 2, SET_STREAM),
    lib(
        &[
            "cudnnDestroy",
            "cudnnCreateTensorDescriptor",
            "cudnnDestroyTensorDescriptor",
            "cudnnSetTensor4dDescriptor",
            "cudnnSetTensorNdDescriptor",
            "cudnnCreateFilterDescriptor",
            "cudnnDestroyFilterDescriptor",
            "cudnnSetFilter4dDescriptor",
            "cudnnCreateConvolutionDescriptor",
            "cudnnDestroyConvolutionDescriptor",
            "cudnnSetConvolution2dDescriptor",
            "cudnnGetConvolution2dForwardOutputDim",
            "cudnnGetConvolutionForwardWorkspaceSize",
            "cudnnCreateActivationDescriptor",
            "cudnnDestroyActivationDescriptor",
            "cudnnSetActivationDescriptor",
            "cudnnCreatePoolingDescriptor",
            "cudnnDestroyPoolingDescriptor",
            "cudnnSetPooling2dDescriptor",
            "cudnnSetConvolutionMathType",
        ],
        9,
        &[NoAccess],
    ),
    // `cudnnConvolutionForward(h, alpha, xDesc, x, wDesc, w, convDesc, algo, workSpace,
    // workSpaceSizeInBytes, beta, yDesc, y)`; the backward passes have the same shape.
    lib(
        &[
            "cudnnConvolutionForward",
            "cudnnConvolutionBackwardData",
            "cudnnConvolutionBackwardFilter",
        ],
        13,
        &on_handle(&[3, 5], &[8, 12]),
    ),
    // `cudnnActivationForward(h, activationDesc, alpha, xDesc, x, beta, yDesc, y)`, pooling alike.
    lib(
        &["cudnnActivationForward", "cudnnPoolingForward"],
        8,
        &on_handle(&[4], &[7]),
    ),
    // `cudnnSoftmaxForward(h, algo, mode, alpha, xDesc, x, beta, yDesc, y)`.
    lib(&["cudnnSoftmaxForward"], 9, &on_handle(&[5], &[8])),
    // `cudnnAddTensor(h, alpha, aDesc, A, beta, cDesc, C)`: C is read and written.
    lib(&["cudnnAddTensor"], 7, &on_handle(&[3], &[6])),
    // `cudnnBatchNormalizationForwardInference(h, mode, alpha, beta, xDesc, x, yDesc, y,
    // bnDesc, scale, bias, mean, variance, epsilon)`.
    lib(
        &["cudnnBatchNormalizationForwardInference"],
        14,
        &on_handle(&[5, 9, 10, 11, 12], &[7]),
    ),
    // NCCL: `ncclAllReduce(send, recv, count, type, op, comm, stream)`.
    lib(&["ncclAllReduce", "ncclReduceScatter"], 7, &on_stream(6, &[0], &[1])),
    // `ncclReduce(send, recv, count, type, op, root, comm, stream)`.
    lib(&["ncclReduce"], 8, &on_stream(7, &[0], &[1])),
    // `ncclBroadcast(send, recv, count, type, root, comm, stream)`.
    lib(&["ncclBroadcast"], 7, &on_stream(6, &[0], &[1])),
    // `ncclAllGather(send, recv, sendcount, type, comm, stream)`.
    lib(&["ncclAllGather"], 6, &on_stream(5, &[0], &[1])),
    // `ncclBcast(buf, count, type, root, comm, stream)`: read at the root, written elsewhere.
    lib(&["ncclBcast"], 6, &on_stream(5, &[], &[0])),
    // `ncclSend(buf, count, type, peer, comm, stream)`, `ncclRecv` alike.
    lib(&["ncclSend"], 6, &on_stream(5, &[0], &[])),
    lib(&["ncclRecv"], 6, &on_stream(5, &[], &[0])),
    lib(
        &[
            "ncclGetUniqueId",
            "ncclCommInitRank",
            "ncclCommInitAll",
            "ncclCommDestroy",
            "ncclCommAbort",
            "ncclCommCount",
            "ncclCommUserRank",
            "ncclGroupStart",
            "ncclGroupEnd",
        ],
        4,
        &[NoAccess],
    ),
];
