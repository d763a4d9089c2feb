// The CUDA libraries' routines as stream work (issue 19, item 3): cuBLAS, cuBLASLt, cuFFT,
// cuRAND, cuDNN and NCCL. A handle (cublasCreate, cudnnCreate, cufftPlan1d,
// curandCreateGenerator) runs its routines on the legacy default stream until
// cublasSetStream / cudnnSetStream / cufftSetStream / curandSetStream gives it another;
// NCCL's calls and cublasLtMatmul take their stream as the last argument. Each function
// below is independent (its own streams, handles and buffers) and is correct apart from
// the one labelled line.
//
// Fires (one finding each):
//   gemm_handle_without_set_stream               handle left on the legacy stream; download on a non-blocking stream
//   gemv_on_legacy_reads_kernel_output           legacy-stream gemv reads what a kernel on a non-blocking stream writes
//   axpy_nonblocking_then_blocking_download      blocking cudaMemcpy does not wait for a non-blocking stream's axpy
//   scale_after_handle_reset_to_legacy           handle set back to stream 0, then a download on the non-blocking stream
//   dot_device_pointer_mode_blocking_download    device-pointer-mode cublasSdot result copied back before a wait
//   copy_with_context_missing_set_stream         handle in a struct made by a helper that never binds the stream
//   gemm_bound_helper_handle_without_event       helper-made handle on one stream, its input produced on another
//   geam_input_restaged_while_running            blocking copy overwrites an input the geam may still read
//   gemm_ex_bias_kernel_on_default_stream        legacy-stream kernel reads cublasGemmEx's output
//   strided_batched_gemm_after_async_upload      legacy-stream batched GEMM reads an async upload of a non-blocking stream
//   gemm_frees_input_while_running               cudaFree of a GEMM input right after the call (relies_on_implicit_sync)
//   lt_matmul_on_null_stream_after_producer      cublasLtMatmul given stream 0 reads a non-blocking stream's kernel output
//   lt_matmul_frees_workspace_early              cudaFree of the workspace right after cublasLtMatmul (relies_on_implicit_sync)
//   fft_c2c_nonblocking_then_blocking_download   blocking download of a cufftExecC2C output on a non-blocking stream
//   fft_r2c_plan_on_legacy_after_window          plan never given the stream reads a windowing kernel's output
//   curand_uniform_on_legacy_consumed_on_stream  generator on the legacy stream, its numbers read on a non-blocking stream
//   curand_normal_read_on_other_blocking_stream  two blocking streams are not ordered with each other
//   cudnn_activation_without_set_stream          cuDNN handle on the legacy stream; download on a non-blocking stream
//   cudnn_conv_output_used_on_other_stream       convolution output read by a kernel on another stream, no event
//   nccl_allreduce_without_compute_event         gradients all-reduced on the comm stream before the compute stream's kernel is waited for
//   nccl_halo_recv_blocking_download             ncclRecv's buffer downloaded by a blocking copy before a wait
//
// Near misses (no finding):
//   gemm_handle_bound_to_stream                  cublasSetStream, then cudaStreamSynchronize before the host read
//   gemm_legacy_handle_blocking_stream_copy      legacy-stream GEMM and a blocking stream order each other
//   gemv_on_legacy_after_stream_sync             producer's stream synchronized before the legacy-stream gemv
//   axpy_legacy_handle_blocking_copies           handle and blocking copies all on the legacy stream
//   axpy_blocking_stream_blocking_download       handle on a blocking stream; a blocking cudaMemcpy waits for it
//   scale_after_reset_then_blocking_download     handle reset to stream 0, output read with a blocking copy
//   dot_host_pointer_mode_read_at_once           host-pointer-mode cublasSdot / cublasSnrm2 results read right after the call
//   power_iteration_nrm2_host_mode               cublasSnrm2 (host pointer mode) read in a loop, one stream
//   copy_with_context_bound_stream               struct made by a helper that binds the stream
//   gemm_bound_helper_handle_event_wait          event recorded on the producer's stream, waited on the handle's
//   geam_input_restaged_on_same_stream           input restaged by an async copy on the handle's stream
//   gemm_ex_bias_kernel_same_stream              consumer kernel on the handle's stream
//   strided_batched_gemm_after_upload_event      upload's event synchronized before the legacy-stream batched GEMM
//   gemm_frees_input_stream_ordered              cudaFreeAsync of the input on the GEMM's stream
//   two_handles_read_shared_weights              two handles on two streams only read the same weights
//   gemm_with_caller_handle                      handle from a caller the file does not show: stream unknown
//   lt_matmul_same_stream_free_after_sync        producer, cublasLtMatmul and download on one stream; workspace freed after the wait
//   fft_c2c_blocking_stream_blocking_download    plan on a blocking stream; a blocking cudaMemcpy waits for it
//   fft_r2c_window_same_stream                   windowing kernel and transform on the plan's stream
//   fft_c2r_legacy_plan_device_synchronize       plan on the legacy stream, cudaDeviceSynchronize before other streams touch the output
//   curand_uniform_same_stream_consumer          curandSetStream to the consumer's stream
//   curand_normal_event_between_streams          event from the generator's stream waited on by the copy stream
//   cudnn_activation_softmax_bound_stream        cudnnSetStream, activation and softmax, synchronize, read
//   cudnn_add_tensor_legacy_with_blocking_stream legacy-stream cudnnAddTensor between copies on a blocking stream
//   cudnn_conv_output_event_wait                 event between the convolution's stream and the consumer's
//   nccl_allreduce_after_compute_event           comm stream waits on the compute stream's event
//   nccl_halo_sync_then_download                 cudaStreamSynchronize after the group, then the blocking copy
//   nccl_bcast_blocking_stream_blocking_download ncclBcast on a blocking stream, then a blocking cudaMemcpy
//   nccl_reduce_scatter_all_gather_same_stream   producer, collectives and download on one stream

#include <cstdio>
#include <vector>

#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cublasLt.h>
#include <cufft.h>
#include <curand.h>
#include <cudnn.h>
#include <nccl.h>

#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess)                                                          \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
    } while (0)

#define CUBLAS_CHECK(call)                                                                \
    do {                                                                                  \
        cublasStatus_t st_ = (call);                                                      \
        if (st_ != CUBLAS_STATUS_SUCCESS)                                                 \
            std::fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__, (int)st_); \
    } while (0)

#define CUFFT_CHECK(call)                                                                 \
    do {                                                                                  \
        cufftResult st_ = (call);                                                         \
        if (st_ != CUFFT_SUCCESS)                                                         \
            std::fprintf(stderr, "%s:%d: cuFFT status %d\n", __FILE__, __LINE__, (int)st_); \
    } while (0)

#define CURAND_CHECK(call)                                                                \
    do {                                                                                  \
        curandStatus_t st_ = (call);                                                      \
        if (st_ != CURAND_STATUS_SUCCESS)                                                 \
            std::fprintf(stderr, "%s:%d: cuRAND status %d\n", __FILE__, __LINE__, (int)st_); \
    } while (0)

#define CUDNN_CHECK(call)                                                                 \
    do {                                                                                  \
        cudnnStatus_t st_ = (call);                                                       \
        if (st_ != CUDNN_STATUS_SUCCESS)                                                  \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudnnGetErrorString(st_)); \
    } while (0)

#define NCCL_CHECK(call)                                                                  \
    do {                                                                                  \
        ncclResult_t st_ = (call);                                                        \
        if (st_ != ncclSuccess)                                                           \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, ncclGetErrorString(st_)); \
    } while (0)

// ---------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------

__global__ void fill_ramp(float* x, int n, float scale, float offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = scale * (float)(i % 61) + offset;
}

// out = relu(in + bias[channel]); `inner` elements per channel, `channels` channels.
__global__ void bias_relu(const float* in, const float* bias, float* out, int n, int inner, int channels)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fmaxf(in[i] + bias[(i / inner) % channels], 0.0f);
}

__global__ void hann_window(const float* frame, cufftReal* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = frame[i] * 0.5f * (1.0f - cosf(6.2831853f * (float)i / (float)(n - 1)));
}

__global__ void affine_map(const float* u, float* out, int n, float lo, float hi)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = lo + (hi - lo) * u[i];
}

__global__ void mse_grad(const float* pred, const float* target, float* grad, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) grad[i] = 2.0f * (pred[i] - target[i]) / (float)n;
}

// Copies the last interior row of an nx-by-ny field into a contiguous halo buffer.
__global__ void pack_halo(const float* field, float* halo, int nx, int ny)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) halo[i] = field[(ny - 1) * nx + i];
}

__global__ void scale_in_place(float* x, int n, float s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}

// ---------------------------------------------------------------------------------------
// Host helpers
// ---------------------------------------------------------------------------------------

static inline int grid_for(int n) { return (n + 255) / 256; }

static void fill_host(float* h, size_t count, float scale)
{
    for (size_t i = 0; i < count; ++i)
        h[i] = scale * (float)((i * 37) % 101) / 101.0f - 0.5f * scale;
}

static double sum_host(const float* h, size_t count)
{
    double s = 0.0;
    for (size_t i = 0; i < count; ++i) s += h[i];
    return s;
}

// ---------------------------------------------------------------------------------------
// cuBLAS: the handle's stream
// ---------------------------------------------------------------------------------------

// Fires: the handle was never given `stream` (pytorch #31537, "a common error"), so the
// GEMM runs on the legacy stream, which the non-blocking `stream` does not wait for: the
// download on `stream` may copy C before the GEMM wrote it.
void gemm_handle_without_set_stream(int m, int n, int k)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));

    const size_t bytesA = sizeof(float) * m * k;
    const size_t bytesB = sizeof(float) * k * n;
    const size_t bytesC = sizeof(float) * m * n;
    float *hA, *hB, *hC;
    CUDA_CHECK(cudaMallocHost(&hA, bytesA));
    CUDA_CHECK(cudaMallocHost(&hB, bytesB));
    CUDA_CHECK(cudaMallocHost(&hC, bytesC));
    fill_host(hA, (size_t)m * k, 0.5f);
    fill_host(hB, (size_t)k * n, 0.25f);

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, bytesA));
    CUDA_CHECK(cudaMalloc(&dB, bytesB));
    CUDA_CHECK(cudaMalloc(&dC, bytesC));
    CUDA_CHECK(cudaMemcpyAsync(dA, hA, bytesA, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(dB, hB, bytesB, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, dB, k, &beta, dC, m));
    CUDA_CHECK(cudaMemcpyAsync(hC, dC, bytesC, cudaMemcpyDeviceToHost, stream)); //~ missing_sync
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("gemm checksum %f\n", sum_host(hC, (size_t)m * n));

    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFreeHost(hA));
    CUDA_CHECK(cudaFreeHost(hB));
    CUDA_CHECK(cudaFreeHost(hC));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: the same GEMM with the handle bound to `stream`; the download and the
// synchronize are on the GEMM's stream.
void gemm_handle_bound_to_stream(int m, int n, int k)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));

    const size_t bytesA = sizeof(float) * m * k;
    const size_t bytesB = sizeof(float) * k * n;
    const size_t bytesC = sizeof(float) * m * n;
    float *hA, *hB, *hC;
    CUDA_CHECK(cudaMallocHost(&hA, bytesA));
    CUDA_CHECK(cudaMallocHost(&hB, bytesB));
    CUDA_CHECK(cudaMallocHost(&hC, bytesC));
    fill_host(hA, (size_t)m * k, 0.5f);
    fill_host(hB, (size_t)k * n, 0.25f);

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, bytesA));
    CUDA_CHECK(cudaMalloc(&dB, bytesB));
    CUDA_CHECK(cudaMalloc(&dC, bytesC));
    CUDA_CHECK(cudaMemcpyAsync(dA, hA, bytesA, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(dB, hB, bytesB, cudaMemcpyHostToDevice, stream));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, dB, k, &beta, dC, m));
    CUDA_CHECK(cudaMemcpyAsync(hC, dC, bytesC, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("gemm checksum %f\n", sum_host(hC, (size_t)m * n));

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFreeHost(hA));
    CUDA_CHECK(cudaFreeHost(hB));
    CUDA_CHECK(cudaFreeHost(hC));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: the handle is left on the legacy stream, but `stream` is a blocking stream
// (cudaStreamCreate): the GEMM waits for the uploads on it, and the download enqueued on
// it after the GEMM waits for the GEMM.
void gemm_legacy_handle_blocking_stream_copy(int m, int n, int k)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));

    const size_t bytesA = sizeof(float) * m * k;
    const size_t bytesB = sizeof(float) * k * n;
    const size_t bytesC = sizeof(float) * m * n;
    float *hA, *hB, *hC;
    CUDA_CHECK(cudaMallocHost(&hA, bytesA));
    CUDA_CHECK(cudaMallocHost(&hB, bytesB));
    CUDA_CHECK(cudaMallocHost(&hC, bytesC));
    fill_host(hA, (size_t)m * k, 1.0f);
    fill_host(hB, (size_t)k * n, 2.0f);

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, bytesA));
    CUDA_CHECK(cudaMalloc(&dB, bytesB));
    CUDA_CHECK(cudaMalloc(&dC, bytesC));
    CUDA_CHECK(cudaMemcpyAsync(dA, hA, bytesA, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(dB, hB, bytesB, cudaMemcpyHostToDevice, stream));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, dB, k, &beta, dC, m));
    CUDA_CHECK(cudaMemcpyAsync(hC, dC, bytesC, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("gemm checksum %f\n", sum_host(hC, (size_t)m * n));

    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFreeHost(hA));
    CUDA_CHECK(cudaFreeHost(hB));
    CUDA_CHECK(cudaFreeHost(hC));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Fires: the matrix is built by a kernel on the non-blocking `stream`, and the handle,
// never given that stream, runs the gemv on the legacy stream, which does not wait for it.
void gemv_on_legacy_reads_kernel_output(int rows, int cols)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));

    float *dA, *dx, *dy;
    CUDA_CHECK(cudaMalloc(&dA, sizeof(float) * rows * cols));
    CUDA_CHECK(cudaMalloc(&dx, sizeof(float) * cols));
    CUDA_CHECK(cudaMalloc(&dy, sizeof(float) * rows));

    fill_ramp<<<grid_for(rows * cols), 256, 0, stream>>>(dA, rows * cols, 0.01f, -0.3f);
    std::vector<float> hx(cols, 1.0f);
    CUDA_CHECK(cudaMemcpy(dx, hx.data(), sizeof(float) * cols, cudaMemcpyHostToDevice));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemv(handle, CUBLAS_OP_N, rows, cols, &alpha, dA, rows, dx, 1, &beta, dy, 1)); //~ missing_sync
    std::vector<float> hy(rows);
    CUDA_CHECK(cudaMemcpy(hy.data(), dy, sizeof(float) * rows, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("row sums: y[0] = %f\n", hy[0]);

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: the same legacy-stream gemv, but the host waits for the producer's stream
// before enqueueing it, and the output comes back with a blocking copy (legacy stream).
void gemv_on_legacy_after_stream_sync(int rows, int cols)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));

    float *dA, *dx, *dy;
    CUDA_CHECK(cudaMalloc(&dA, sizeof(float) * rows * cols));
    CUDA_CHECK(cudaMalloc(&dx, sizeof(float) * cols));
    CUDA_CHECK(cudaMalloc(&dy, sizeof(float) * rows));

    fill_ramp<<<grid_for(rows * cols), 256, 0, stream>>>(dA, rows * cols, 0.01f, -0.3f);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<float> hx(cols, 1.0f);
    CUDA_CHECK(cudaMemcpy(dx, hx.data(), sizeof(float) * cols, cudaMemcpyHostToDevice));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemv(handle, CUBLAS_OP_N, rows, cols, &alpha, dA, rows, dx, 1, &beta, dy, 1));
    std::vector<float> hy(rows);
    CUDA_CHECK(cudaMemcpy(hy.data(), dy, sizeof(float) * rows, cudaMemcpyDeviceToHost));
    std::printf("row sums: y[0] = %f\n", hy[0]);

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: no stream at all: the handle, the uploads and the download are all on the
// legacy stream, which orders them.
void axpy_legacy_handle_blocking_copies(int n)
{
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));

    std::vector<float> hx(n), hy(n);
    fill_host(hx.data(), n, 1.0f);
    fill_host(hy.data(), n, 3.0f);

    float *dx, *dy;
    CUDA_CHECK(cudaMalloc(&dx, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&dy, sizeof(float) * n));
    CUDA_CHECK(cudaMemcpy(dx, hx.data(), sizeof(float) * n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dy, hy.data(), sizeof(float) * n, cudaMemcpyHostToDevice));

    const float alpha = -0.5f;
    CUBLAS_CHECK(cublasSaxpy(handle, n, &alpha, dx, 1, dy, 1));
    CUDA_CHECK(cudaMemcpy(hy.data(), dy, sizeof(float) * n, cudaMemcpyDeviceToHost));
    std::printf("axpy sum %f\n", sum_host(hy.data(), n));

    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUBLAS_CHECK(cublasDestroy(handle));
}

// Fires: the axpy runs on the non-blocking `stream`; the blocking cudaMemcpy runs on the
// legacy stream, which does not wait for it, and may copy y before the axpy updated it.
void axpy_nonblocking_then_blocking_download(int n)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));

    float *hx, *hy;
    CUDA_CHECK(cudaMallocHost(&hx, sizeof(float) * n));
    CUDA_CHECK(cudaMallocHost(&hy, sizeof(float) * n));
    fill_host(hx, n, 1.0f);
    fill_host(hy, n, 3.0f);

    float *dx, *dy;
    CUDA_CHECK(cudaMalloc(&dx, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&dy, sizeof(float) * n));
    CUDA_CHECK(cudaMemcpyAsync(dx, hx, sizeof(float) * n, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(dy, hy, sizeof(float) * n, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    const float alpha = -0.5f;
    CUBLAS_CHECK(cublasSaxpy(handle, n, &alpha, dx, 1, dy, 1));
    std::vector<float> result(n);
    CUDA_CHECK(cudaMemcpy(result.data(), dy, sizeof(float) * n, cudaMemcpyDeviceToHost)); //~ missing_sync
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("axpy sum %f\n", sum_host(result.data(), n));

    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFreeHost(hx));
    CUDA_CHECK(cudaFreeHost(hy));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: the handle is on a blocking stream (cudaStreamCreate): the legacy stream's
// blocking cudaMemcpy waits for the axpy.
void axpy_blocking_stream_blocking_download(int n)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));

    float *hx, *hy;
    CUDA_CHECK(cudaMallocHost(&hx, sizeof(float) * n));
    CUDA_CHECK(cudaMallocHost(&hy, sizeof(float) * n));
    fill_host(hx, n, 1.0f);
    fill_host(hy, n, 3.0f);

    float *dx, *dy;
    CUDA_CHECK(cudaMalloc(&dx, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&dy, sizeof(float) * n));
    CUDA_CHECK(cudaMemcpyAsync(dx, hx, sizeof(float) * n, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(dy, hy, sizeof(float) * n, cudaMemcpyHostToDevice, stream));

    const float alpha = -0.5f;
    CUBLAS_CHECK(cublasSaxpy(handle, n, &alpha, dx, 1, dy, 1));
    std::vector<float> result(n);
    CUDA_CHECK(cudaMemcpy(result.data(), dy, sizeof(float) * n, cudaMemcpyDeviceToHost));
    std::printf("axpy sum %f\n", sum_host(result.data(), n));

    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFreeHost(hx));
    CUDA_CHECK(cudaFreeHost(hy));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Borrows a shared handle for one GEMM on `stream`, waits for it, and hands the handle
// back on the default stream, as the code around it expects to find it.
static void gemm_on_stream_and_restore(cublasHandle_t handle, cudaStream_t stream, int m, int n, int k,
                                       const float* dA, const float* dB, float* dC)
{
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, dB, k, &beta, dC, m));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUBLAS_CHECK(cublasSetStream(handle, 0));
}

// Fires: after the helper the handle is back on stream 0, so the scal runs on the legacy
// stream; the download on the non-blocking `stream` does not wait for it.
void scale_after_handle_reset_to_legacy(int m, int n, int k)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));

    const size_t bytesA = sizeof(float) * m * k;
    const size_t bytesB = sizeof(float) * k * n;
    const size_t bytesC = sizeof(float) * m * n;
    float *hA, *hB, *hC;
    CUDA_CHECK(cudaMallocHost(&hA, bytesA));
    CUDA_CHECK(cudaMallocHost(&hB, bytesB));
    CUDA_CHECK(cudaMallocHost(&hC, bytesC));
    fill_host(hA, (size_t)m * k, 1.0f);
    fill_host(hB, (size_t)k * n, 1.0f);

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, bytesA));
    CUDA_CHECK(cudaMalloc(&dB, bytesB));
    CUDA_CHECK(cudaMalloc(&dC, bytesC));
    CUDA_CHECK(cudaMemcpyAsync(dA, hA, bytesA, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(dB, hB, bytesB, cudaMemcpyHostToDevice, stream));

    gemm_on_stream_and_restore(handle, stream, m, n, k, dA, dB, dC);
    const float inv_k = 1.0f / (float)k;
    CUBLAS_CHECK(cublasSscal(handle, m * n, &inv_k, dC, 1));
    CUDA_CHECK(cudaMemcpyAsync(hC, dC, bytesC, cudaMemcpyDeviceToHost, stream)); //~ missing_sync
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("mean product %f\n", sum_host(hC, (size_t)m * n));

    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFreeHost(hA));
    CUDA_CHECK(cudaFreeHost(hB));
    CUDA_CHECK(cudaFreeHost(hC));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: the same reset handle, but the scaled output comes back with a blocking copy,
// which runs on the legacy stream after the scal.
void scale_after_reset_then_blocking_download(int m, int n, int k)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));

    const size_t bytesA = sizeof(float) * m * k;
    const size_t bytesB = sizeof(float) * k * n;
    float *hA, *hB;
    CUDA_CHECK(cudaMallocHost(&hA, bytesA));
    CUDA_CHECK(cudaMallocHost(&hB, bytesB));
    fill_host(hA, (size_t)m * k, 1.0f);
    fill_host(hB, (size_t)k * n, 1.0f);

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, bytesA));
    CUDA_CHECK(cudaMalloc(&dB, bytesB));
    CUDA_CHECK(cudaMalloc(&dC, sizeof(float) * m * n));
    CUDA_CHECK(cudaMemcpyAsync(dA, hA, bytesA, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(dB, hB, bytesB, cudaMemcpyHostToDevice, stream));

    gemm_on_stream_and_restore(handle, stream, m, n, k, dA, dB, dC);
    const float inv_k = 1.0f / (float)k;
    CUBLAS_CHECK(cublasSscal(handle, m * n, &inv_k, dC, 1));
    std::vector<float> result((size_t)m * n);
    CUDA_CHECK(cudaMemcpy(result.data(), dC, sizeof(float) * m * n, cudaMemcpyDeviceToHost));
    std::printf("mean product %f\n", sum_host(result.data(), result.size()));

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFreeHost(hA));
    CUDA_CHECK(cudaFreeHost(hB));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// ---------------------------------------------------------------------------------------
// cuBLAS: reductions and pointer modes
// ---------------------------------------------------------------------------------------

// Fires: in device pointer mode cublasSdot writes its result to device memory on the
// non-blocking `stream` and returns at once; the blocking copy on the legacy stream does
// not wait for it.
void dot_device_pointer_mode_blocking_download(int n)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    CUBLAS_CHECK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE));

    float *hx, *hy;
    CUDA_CHECK(cudaMallocHost(&hx, sizeof(float) * n));
    CUDA_CHECK(cudaMallocHost(&hy, sizeof(float) * n));
    fill_host(hx, n, 2.0f);
    fill_host(hy, n, 0.5f);

    float *dx, *dy, *d_dot;
    CUDA_CHECK(cudaMalloc(&dx, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&dy, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_dot, sizeof(float)));
    CUDA_CHECK(cudaMemcpyAsync(dx, hx, sizeof(float) * n, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(dy, hy, sizeof(float) * n, cudaMemcpyHostToDevice, stream));

    CUBLAS_CHECK(cublasSdot(handle, n, dx, 1, dy, 1, d_dot));
    float dot = 0.0f;
    CUDA_CHECK(cudaMemcpy(&dot, d_dot, sizeof(float), cudaMemcpyDeviceToHost)); //~ missing_sync
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("x.y = %f\n", dot);

    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFree(d_dot));
    CUDA_CHECK(cudaFreeHost(hx));
    CUDA_CHECK(cudaFreeHost(hy));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: in the default host pointer mode cublasSdot and cublasSnrm2 return only once
// their host results are written: reading them right after the call is correct.
void dot_host_pointer_mode_read_at_once(int n)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));

    float* hy;
    CUDA_CHECK(cudaMallocHost(&hy, sizeof(float) * n));
    fill_host(hy, n, 0.5f);

    float *dx, *dy;
    CUDA_CHECK(cudaMalloc(&dx, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&dy, sizeof(float) * n));
    fill_ramp<<<grid_for(n), 256, 0, stream>>>(dx, n, 0.05f, -1.0f);
    CUDA_CHECK(cudaMemcpyAsync(dy, hy, sizeof(float) * n, cudaMemcpyHostToDevice, stream));

    float dot = 0.0f, norm_x = 0.0f, norm_y = 0.0f;
    CUBLAS_CHECK(cublasSdot(handle, n, dx, 1, dy, 1, &dot));
    CUBLAS_CHECK(cublasSnrm2(handle, n, dx, 1, &norm_x));
    CUBLAS_CHECK(cublasSnrm2(handle, n, dy, 1, &norm_y));
    const float cosine = (norm_x > 0.0f && norm_y > 0.0f) ? dot / (norm_x * norm_y) : 0.0f;
    std::printf("cosine similarity %f\n", cosine);

    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFreeHost(hy));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: power iteration on one stream; the host reads each cublasSnrm2 result
// (host pointer mode) right after the call to decide whether to go on.
void power_iteration_nrm2_host_mode(int dim, int max_iters)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));

    float *dA, *dx, *dy;
    CUDA_CHECK(cudaMalloc(&dA, sizeof(float) * dim * dim));
    CUDA_CHECK(cudaMalloc(&dx, sizeof(float) * dim));
    CUDA_CHECK(cudaMalloc(&dy, sizeof(float) * dim));
    fill_ramp<<<grid_for(dim * dim), 256, 0, stream>>>(dA, dim * dim, 0.001f, 0.0f);
    fill_ramp<<<grid_for(dim), 256, 0, stream>>>(dx, dim, 0.0f, 1.0f);

    const float one = 1.0f, zero = 0.0f;
    float lambda = 0.0f;
    int iters = 0;
    for (int it = 0; it < max_iters; ++it) {
        CUBLAS_CHECK(cublasSgemv(handle, CUBLAS_OP_N, dim, dim, &one, dA, dim, dx, 1, &zero, dy, 1));
        float norm = 0.0f;
        CUBLAS_CHECK(cublasSnrm2(handle, dim, dy, 1, &norm));
        iters = it + 1;
        if (norm == 0.0f) break;
        const float inv = 1.0f / norm;
        CUBLAS_CHECK(cublasSscal(handle, dim, &inv, dy, 1));
        CUBLAS_CHECK(cublasScopy(handle, dim, dy, 1, dx, 1));
        const bool converged = fabsf(norm - lambda) < 1e-6f * norm;
        lambda = norm;
        if (converged) break;
    }
    std::printf("dominant eigenvalue %f after %d iterations\n", lambda, iters);

    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// ---------------------------------------------------------------------------------------
// cuBLAS: handles kept in a struct or made by a helper
// ---------------------------------------------------------------------------------------

struct BlasContext {
    cudaStream_t stream;
    cublasHandle_t handle;
};

// Makes the context's stream and handle; the handle is not bound to the stream.
static void blas_context_create(BlasContext& ctx)
{
    CUDA_CHECK(cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking));
    CUBLAS_CHECK(cublasCreate(&ctx.handle));
}

// Makes the context's stream and handle and binds the handle to the stream.
static void blas_context_create_bound(BlasContext& ctx)
{
    CUDA_CHECK(cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking));
    CUBLAS_CHECK(cublasCreate(&ctx.handle));
    CUBLAS_CHECK(cublasSetStream(ctx.handle, ctx.stream));
}

static void blas_context_destroy(BlasContext& ctx)
{
    CUBLAS_CHECK(cublasDestroy(ctx.handle));
    CUDA_CHECK(cudaStreamDestroy(ctx.stream));
}

// Fires: the context's handle was never bound to ctx.stream, so the copy runs on the
// legacy stream and reads d_src while the kernel on the non-blocking ctx.stream may still
// be writing it.
void copy_with_context_missing_set_stream(int n)
{
    BlasContext ctx;
    blas_context_create(ctx);

    float *d_src, *d_dst;
    CUDA_CHECK(cudaMalloc(&d_src, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_dst, sizeof(float) * n));
    fill_ramp<<<grid_for(n), 256, 0, ctx.stream>>>(d_src, n, 0.1f, 1.0f);

    CUBLAS_CHECK(cublasScopy(ctx.handle, n, d_src, 1, d_dst, 1)); //~ missing_sync
    std::vector<float> h_dst(n);
    CUDA_CHECK(cudaMemcpy(h_dst.data(), d_dst, sizeof(float) * n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    std::printf("copied sum %f\n", sum_host(h_dst.data(), n));

    CUDA_CHECK(cudaFree(d_src));
    CUDA_CHECK(cudaFree(d_dst));
    blas_context_destroy(ctx);
}

// Near miss: the same copy with a context whose helper binds the handle to ctx.stream:
// kernel, copy and download are ordered on that stream.
void copy_with_context_bound_stream(int n)
{
    BlasContext ctx;
    blas_context_create_bound(ctx);

    float *d_src, *d_dst, *h_dst;
    CUDA_CHECK(cudaMalloc(&d_src, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_dst, sizeof(float) * n));
    CUDA_CHECK(cudaMallocHost(&h_dst, sizeof(float) * n));
    fill_ramp<<<grid_for(n), 256, 0, ctx.stream>>>(d_src, n, 0.1f, 1.0f);

    CUBLAS_CHECK(cublasScopy(ctx.handle, n, d_src, 1, d_dst, 1));
    CUDA_CHECK(cudaMemcpyAsync(h_dst, d_dst, sizeof(float) * n, cudaMemcpyDeviceToHost, ctx.stream));
    CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    std::printf("copied sum %f\n", sum_host(h_dst, n));

    CUDA_CHECK(cudaFree(d_src));
    CUDA_CHECK(cudaFree(d_dst));
    CUDA_CHECK(cudaFreeHost(h_dst));
    blas_context_destroy(ctx);
}

static cublasHandle_t make_handle_on(cudaStream_t stream)
{
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    return handle;
}

// Fires: the helper binds the handle to math_stream, but the weights are generated on
// load_stream and nothing orders the GEMM after that kernel.
void gemm_bound_helper_handle_without_event(int m, int n, int k)
{
    cudaStream_t load_stream, math_stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&load_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&math_stream, cudaStreamNonBlocking));
    cublasHandle_t handle = make_handle_on(math_stream);

    const size_t bytesB = sizeof(float) * k * n;
    const size_t bytesC = sizeof(float) * m * n;
    float *hB, *hC;
    CUDA_CHECK(cudaMallocHost(&hB, bytesB));
    CUDA_CHECK(cudaMallocHost(&hC, bytesC));
    fill_host(hB, (size_t)k * n, 1.0f);

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, sizeof(float) * m * k));
    CUDA_CHECK(cudaMalloc(&dB, bytesB));
    CUDA_CHECK(cudaMalloc(&dC, bytesC));
    fill_ramp<<<grid_for(m * k), 256, 0, load_stream>>>(dA, m * k, 0.02f, -0.6f);
    CUDA_CHECK(cudaMemcpyAsync(dB, hB, bytesB, cudaMemcpyHostToDevice, math_stream));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, dB, k, &beta, dC, m)); //~ missing_sync
    CUDA_CHECK(cudaMemcpyAsync(hC, dC, bytesC, cudaMemcpyDeviceToHost, math_stream));
    CUDA_CHECK(cudaStreamSynchronize(math_stream));
    CUDA_CHECK(cudaStreamSynchronize(load_stream));
    std::printf("projection checksum %f\n", sum_host(hC, (size_t)m * n));

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFreeHost(hB));
    CUDA_CHECK(cudaFreeHost(hC));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(load_stream));
    CUDA_CHECK(cudaStreamDestroy(math_stream));
}

// Near miss: an event recorded after the weight kernel on load_stream, waited on by
// math_stream before the GEMM.
void gemm_bound_helper_handle_event_wait(int m, int n, int k)
{
    cudaStream_t load_stream, math_stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&load_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&math_stream, cudaStreamNonBlocking));
    cublasHandle_t handle = make_handle_on(math_stream);
    cudaEvent_t weights_ready;
    CUDA_CHECK(cudaEventCreateWithFlags(&weights_ready, cudaEventDisableTiming));

    const size_t bytesB = sizeof(float) * k * n;
    const size_t bytesC = sizeof(float) * m * n;
    float *hB, *hC;
    CUDA_CHECK(cudaMallocHost(&hB, bytesB));
    CUDA_CHECK(cudaMallocHost(&hC, bytesC));
    fill_host(hB, (size_t)k * n, 1.0f);

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, sizeof(float) * m * k));
    CUDA_CHECK(cudaMalloc(&dB, bytesB));
    CUDA_CHECK(cudaMalloc(&dC, bytesC));
    fill_ramp<<<grid_for(m * k), 256, 0, load_stream>>>(dA, m * k, 0.02f, -0.6f);
    CUDA_CHECK(cudaEventRecord(weights_ready, load_stream));
    CUDA_CHECK(cudaMemcpyAsync(dB, hB, bytesB, cudaMemcpyHostToDevice, math_stream));
    CUDA_CHECK(cudaStreamWaitEvent(math_stream, weights_ready, 0));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, dB, k, &beta, dC, m));
    CUDA_CHECK(cudaMemcpyAsync(hC, dC, bytesC, cudaMemcpyDeviceToHost, math_stream));
    CUDA_CHECK(cudaStreamSynchronize(math_stream));
    std::printf("projection checksum %f\n", sum_host(hC, (size_t)m * n));

    CUDA_CHECK(cudaStreamSynchronize(load_stream));
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFreeHost(hB));
    CUDA_CHECK(cudaFreeHost(hC));
    CUDA_CHECK(cudaEventDestroy(weights_ready));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(load_stream));
    CUDA_CHECK(cudaStreamDestroy(math_stream));
}

// ---------------------------------------------------------------------------------------
// cuBLAS: inputs rewritten, outputs consumed, inputs freed
// ---------------------------------------------------------------------------------------

// Fires: the next frame is staged into dA with a blocking copy, which runs on the legacy
// stream and does not wait for the first geam on the non-blocking `stream` to read dA.
void geam_input_restaged_while_running(int rows, int cols)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));

    const size_t count = (size_t)rows * cols;
    const size_t bytes = sizeof(float) * count;
    float *hA, *hB, *hA_next, *hOut;
    CUDA_CHECK(cudaMallocHost(&hA, bytes));
    CUDA_CHECK(cudaMallocHost(&hB, bytes));
    CUDA_CHECK(cudaMallocHost(&hA_next, bytes));
    CUDA_CHECK(cudaMallocHost(&hOut, bytes));
    fill_host(hA, count, 1.0f);
    fill_host(hB, count, 2.0f);
    fill_host(hA_next, count, 4.0f);

    float *dA, *dB, *dSum, *dOut;
    CUDA_CHECK(cudaMalloc(&dA, bytes));
    CUDA_CHECK(cudaMalloc(&dB, bytes));
    CUDA_CHECK(cudaMalloc(&dSum, bytes));
    CUDA_CHECK(cudaMalloc(&dOut, bytes));
    CUDA_CHECK(cudaMemcpyAsync(dA, hA, bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(dB, hB, bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    const float one = 1.0f, half = 0.5f;
    CUBLAS_CHECK(cublasSgeam(handle, CUBLAS_OP_N, CUBLAS_OP_N, rows, cols, &one, dA, rows, &half, dB, rows, dSum, rows));
    CUDA_CHECK(cudaMemcpy(dA, hA_next, bytes, cudaMemcpyHostToDevice)); //~ missing_sync
    CUBLAS_CHECK(cublasSgeam(handle, CUBLAS_OP_N, CUBLAS_OP_N, rows, cols, &one, dA, rows, &half, dSum, rows, dOut, rows));
    CUDA_CHECK(cudaMemcpyAsync(hOut, dOut, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("blended frame sum %f\n", sum_host(hOut, count));

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dSum));
    CUDA_CHECK(cudaFree(dOut));
    CUDA_CHECK(cudaFreeHost(hA));
    CUDA_CHECK(cudaFreeHost(hB));
    CUDA_CHECK(cudaFreeHost(hA_next));
    CUDA_CHECK(cudaFreeHost(hOut));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: the next frame is staged with an asynchronous copy on the handle's own
// stream, which runs after the first geam.
void geam_input_restaged_on_same_stream(int rows, int cols)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));

    const size_t count = (size_t)rows * cols;
    const size_t bytes = sizeof(float) * count;
    float *hA, *hB, *hA_next, *hOut;
    CUDA_CHECK(cudaMallocHost(&hA, bytes));
    CUDA_CHECK(cudaMallocHost(&hB, bytes));
    CUDA_CHECK(cudaMallocHost(&hA_next, bytes));
    CUDA_CHECK(cudaMallocHost(&hOut, bytes));
    fill_host(hA, count, 1.0f);
    fill_host(hB, count, 2.0f);
    fill_host(hA_next, count, 4.0f);

    float *dA, *dB, *dSum, *dOut;
    CUDA_CHECK(cudaMalloc(&dA, bytes));
    CUDA_CHECK(cudaMalloc(&dB, bytes));
    CUDA_CHECK(cudaMalloc(&dSum, bytes));
    CUDA_CHECK(cudaMalloc(&dOut, bytes));
    CUDA_CHECK(cudaMemcpyAsync(dA, hA, bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(dB, hB, bytes, cudaMemcpyHostToDevice, stream));

    const float one = 1.0f, half = 0.5f;
    CUBLAS_CHECK(cublasSgeam(handle, CUBLAS_OP_N, CUBLAS_OP_N, rows, cols, &one, dA, rows, &half, dB, rows, dSum, rows));
    CUDA_CHECK(cudaMemcpyAsync(dA, hA_next, bytes, cudaMemcpyHostToDevice, stream));
    CUBLAS_CHECK(cublasSgeam(handle, CUBLAS_OP_N, CUBLAS_OP_N, rows, cols, &one, dA, rows, &half, dSum, rows, dOut, rows));
    CUDA_CHECK(cudaMemcpyAsync(hOut, dOut, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("blended frame sum %f\n", sum_host(hOut, count));

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dSum));
    CUDA_CHECK(cudaFree(dOut));
    CUDA_CHECK(cudaFreeHost(hA));
    CUDA_CHECK(cudaFreeHost(hB));
    CUDA_CHECK(cudaFreeHost(hA_next));
    CUDA_CHECK(cudaFreeHost(hOut));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Fires: cublasGemmEx writes dC on the non-blocking `stream`; the bias kernel is launched
// on the legacy stream (no stream argument), which does not wait for it.
void gemm_ex_bias_kernel_on_default_stream(int m, int n, int k)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));

    const size_t bytesA = sizeof(float) * m * k;
    const size_t bytesB = sizeof(float) * k * n;
    const size_t bytesC = sizeof(float) * m * n;
    float *hA, *hB;
    CUDA_CHECK(cudaMallocHost(&hA, bytesA));
    CUDA_CHECK(cudaMallocHost(&hB, bytesB));
    fill_host(hA, (size_t)m * k, 1.0f);
    fill_host(hB, (size_t)k * n, 1.0f);
    std::vector<float> h_bias(m, 0.1f);

    float *dA, *dB, *dC, *dBias, *dOut;
    CUDA_CHECK(cudaMalloc(&dA, bytesA));
    CUDA_CHECK(cudaMalloc(&dB, bytesB));
    CUDA_CHECK(cudaMalloc(&dC, bytesC));
    CUDA_CHECK(cudaMalloc(&dBias, sizeof(float) * m));
    CUDA_CHECK(cudaMalloc(&dOut, bytesC));
    CUDA_CHECK(cudaMemcpy(dBias, h_bias.data(), sizeof(float) * m, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyAsync(dA, hA, bytesA, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(dB, hB, bytesB, cudaMemcpyHostToDevice, stream));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, CUDA_R_32F, m, dB, CUDA_R_32F, k, &beta, dC, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    bias_relu<<<grid_for(m * n), 256>>>(dC, dBias, dOut, m * n, 1, m); //~ missing_sync
    std::vector<float> h_out((size_t)m * n);
    CUDA_CHECK(cudaMemcpy(h_out.data(), dOut, bytesC, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("activation sum %f\n", sum_host(h_out.data(), h_out.size()));

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFree(dBias));
    CUDA_CHECK(cudaFree(dOut));
    CUDA_CHECK(cudaFreeHost(hA));
    CUDA_CHECK(cudaFreeHost(hB));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: the bias kernel runs on the handle's stream, after cublasGemmEx.
void gemm_ex_bias_kernel_same_stream(int m, int n, int k)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));

    const size_t bytesA = sizeof(float) * m * k;
    const size_t bytesB = sizeof(float) * k * n;
    const size_t bytesC = sizeof(float) * m * n;
    float *hA, *hB, *hBias, *hOut;
    CUDA_CHECK(cudaMallocHost(&hA, bytesA));
    CUDA_CHECK(cudaMallocHost(&hB, bytesB));
    CUDA_CHECK(cudaMallocHost(&hBias, sizeof(float) * m));
    CUDA_CHECK(cudaMallocHost(&hOut, bytesC));
    fill_host(hA, (size_t)m * k, 1.0f);
    fill_host(hB, (size_t)k * n, 1.0f);
    fill_host(hBias, m, 0.2f);

    float *dA, *dB, *dC, *dBias, *dOut;
    CUDA_CHECK(cudaMalloc(&dA, bytesA));
    CUDA_CHECK(cudaMalloc(&dB, bytesB));
    CUDA_CHECK(cudaMalloc(&dC, bytesC));
    CUDA_CHECK(cudaMalloc(&dBias, sizeof(float) * m));
    CUDA_CHECK(cudaMalloc(&dOut, bytesC));
    CUDA_CHECK(cudaMemcpyAsync(dBias, hBias, sizeof(float) * m, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(dA, hA, bytesA, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(dB, hB, bytesB, cudaMemcpyHostToDevice, stream));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, CUDA_R_32F, m, dB, CUDA_R_32F, k, &beta, dC, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    bias_relu<<<grid_for(m * n), 256, 0, stream>>>(dC, dBias, dOut, m * n, 1, m);
    CUDA_CHECK(cudaMemcpyAsync(hOut, dOut, bytesC, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("activation sum %f\n", sum_host(hOut, (size_t)m * n));

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFree(dBias));
    CUDA_CHECK(cudaFree(dOut));
    CUDA_CHECK(cudaFreeHost(hA));
    CUDA_CHECK(cudaFreeHost(hB));
    CUDA_CHECK(cudaFreeHost(hBias));
    CUDA_CHECK(cudaFreeHost(hOut));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Fires: the activations arrive by an asynchronous copy on the non-blocking `stream`, and
// the handle, left on the legacy stream, runs the batched GEMM without waiting for it.
void strided_batched_gemm_after_async_upload(int m, int n, int k, int batch)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));

    const size_t bytesA = sizeof(float) * m * k * batch;
    const size_t bytesW = sizeof(float) * k * n;
    const size_t bytesC = sizeof(float) * m * n * batch;
    float *hA, *hW;
    CUDA_CHECK(cudaMallocHost(&hA, bytesA));
    CUDA_CHECK(cudaMallocHost(&hW, bytesW));
    fill_host(hA, (size_t)m * k * batch, 1.0f);
    fill_host(hW, (size_t)k * n, 0.5f);

    float *dA, *dW, *dC;
    CUDA_CHECK(cudaMalloc(&dA, bytesA));
    CUDA_CHECK(cudaMalloc(&dW, bytesW));
    CUDA_CHECK(cudaMalloc(&dC, bytesC));
    CUDA_CHECK(cudaMemcpy(dW, hW, bytesW, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyAsync(dA, hA, bytesA, cudaMemcpyHostToDevice, stream));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, (long long)m * k, dW, k, 0, &beta, dC, m, (long long)m * n, batch)); //~ missing_sync
    std::vector<float> hC((size_t)m * n * batch);
    CUDA_CHECK(cudaMemcpy(hC.data(), dC, bytesC, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("batched checksum %f\n", sum_host(hC.data(), hC.size()));

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dW));
    CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFreeHost(hA));
    CUDA_CHECK(cudaFreeHost(hW));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: the same legacy-stream batched GEMM after the host waited for an event
// recorded behind the upload.
void strided_batched_gemm_after_upload_event(int m, int n, int k, int batch)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaEvent_t uploaded;
    CUDA_CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));

    const size_t bytesA = sizeof(float) * m * k * batch;
    const size_t bytesW = sizeof(float) * k * n;
    const size_t bytesC = sizeof(float) * m * n * batch;
    float *hA, *hW;
    CUDA_CHECK(cudaMallocHost(&hA, bytesA));
    CUDA_CHECK(cudaMallocHost(&hW, bytesW));
    fill_host(hA, (size_t)m * k * batch, 1.0f);
    fill_host(hW, (size_t)k * n, 0.5f);

    float *dA, *dW, *dC;
    CUDA_CHECK(cudaMalloc(&dA, bytesA));
    CUDA_CHECK(cudaMalloc(&dW, bytesW));
    CUDA_CHECK(cudaMalloc(&dC, bytesC));
    CUDA_CHECK(cudaMemcpy(dW, hW, bytesW, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyAsync(dA, hA, bytesA, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaEventRecord(uploaded, stream));
    CUDA_CHECK(cudaEventSynchronize(uploaded));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, (long long)m * k, dW, k, 0, &beta, dC, m, (long long)m * n, batch));
    std::vector<float> hC((size_t)m * n * batch);
    CUDA_CHECK(cudaMemcpy(hC.data(), dC, bytesC, cudaMemcpyDeviceToHost));
    std::printf("batched checksum %f\n", sum_host(hC.data(), hC.size()));

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dW));
    CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFreeHost(hA));
    CUDA_CHECK(cudaFreeHost(hW));
    CUDA_CHECK(cudaEventDestroy(uploaded));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Fires (relies_on_implicit_sync): the activations are freed as soon as the GEMM is
// enqueued; cudaFree happens to wait for the GEMM that may still read them.
void gemm_frees_input_while_running(int m, int n, int k)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));

    const size_t bytesA = sizeof(float) * m * k;
    const size_t bytesB = sizeof(float) * k * n;
    const size_t bytesC = sizeof(float) * m * n;
    float *hA, *hB, *hC;
    CUDA_CHECK(cudaMallocHost(&hA, bytesA));
    CUDA_CHECK(cudaMallocHost(&hB, bytesB));
    CUDA_CHECK(cudaMallocHost(&hC, bytesC));
    fill_host(hA, (size_t)m * k, 1.0f);
    fill_host(hB, (size_t)k * n, 1.0f);

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, bytesA));
    CUDA_CHECK(cudaMalloc(&dB, bytesB));
    CUDA_CHECK(cudaMalloc(&dC, bytesC));
    CUDA_CHECK(cudaMemcpyAsync(dA, hA, bytesA, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(dB, hB, bytesB, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, dB, k, &beta, dC, m));
    CUDA_CHECK(cudaFree(dA)); //~ relies_on_implicit_sync
    CUDA_CHECK(cudaMemcpyAsync(hC, dC, bytesC, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("gemm checksum %f\n", sum_host(hC, (size_t)m * n));

    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFreeHost(hA));
    CUDA_CHECK(cudaFreeHost(hB));
    CUDA_CHECK(cudaFreeHost(hC));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: the activations come from the stream's pool and are released with a
// stream-ordered free on the GEMM's own stream, which runs after the GEMM.
void gemm_frees_input_stream_ordered(int m, int n, int k)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));

    const size_t bytesA = sizeof(float) * m * k;
    const size_t bytesB = sizeof(float) * k * n;
    const size_t bytesC = sizeof(float) * m * n;
    float *hA, *hB, *hC;
    CUDA_CHECK(cudaMallocHost(&hA, bytesA));
    CUDA_CHECK(cudaMallocHost(&hB, bytesB));
    CUDA_CHECK(cudaMallocHost(&hC, bytesC));
    fill_host(hA, (size_t)m * k, 1.0f);
    fill_host(hB, (size_t)k * n, 1.0f);

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMallocAsync(&dA, bytesA, stream));
    CUDA_CHECK(cudaMalloc(&dB, bytesB));
    CUDA_CHECK(cudaMalloc(&dC, bytesC));
    CUDA_CHECK(cudaMemcpyAsync(dA, hA, bytesA, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(dB, hB, bytesB, cudaMemcpyHostToDevice, stream));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, dB, k, &beta, dC, m));
    CUDA_CHECK(cudaFreeAsync(dA, stream));
    CUDA_CHECK(cudaMemcpyAsync(hC, dC, bytesC, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("gemm checksum %f\n", sum_host(hC, (size_t)m * n));

    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFreeHost(hA));
    CUDA_CHECK(cudaFreeHost(hB));
    CUDA_CHECK(cudaFreeHost(hC));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: two handles on two streams run gemv on the same weights; both only read
// them. The weights are uploaded on the first stream, and the second waits on an event.
void two_handles_read_shared_weights(int rows, int cols)
{
    cudaStream_t s_left, s_right;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_left, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_right, cudaStreamNonBlocking));
    cudaEvent_t weights_ready;
    CUDA_CHECK(cudaEventCreateWithFlags(&weights_ready, cudaEventDisableTiming));
    cublasHandle_t h_left, h_right;
    CUBLAS_CHECK(cublasCreate(&h_left));
    CUBLAS_CHECK(cublasCreate(&h_right));
    CUBLAS_CHECK(cublasSetStream(h_left, s_left));
    CUBLAS_CHECK(cublasSetStream(h_right, s_right));

    const size_t bytesW = sizeof(float) * rows * cols;
    float *hW, *hx_left, *hx_right, *hy_left, *hy_right;
    CUDA_CHECK(cudaMallocHost(&hW, bytesW));
    CUDA_CHECK(cudaMallocHost(&hx_left, sizeof(float) * cols));
    CUDA_CHECK(cudaMallocHost(&hx_right, sizeof(float) * cols));
    CUDA_CHECK(cudaMallocHost(&hy_left, sizeof(float) * rows));
    CUDA_CHECK(cudaMallocHost(&hy_right, sizeof(float) * rows));
    fill_host(hW, (size_t)rows * cols, 0.1f);
    fill_host(hx_left, cols, 1.0f);
    fill_host(hx_right, cols, -1.0f);

    float *dW, *dx_left, *dx_right, *dy_left, *dy_right;
    CUDA_CHECK(cudaMalloc(&dW, bytesW));
    CUDA_CHECK(cudaMalloc(&dx_left, sizeof(float) * cols));
    CUDA_CHECK(cudaMalloc(&dx_right, sizeof(float) * cols));
    CUDA_CHECK(cudaMalloc(&dy_left, sizeof(float) * rows));
    CUDA_CHECK(cudaMalloc(&dy_right, sizeof(float) * rows));
    CUDA_CHECK(cudaMemcpyAsync(dW, hW, bytesW, cudaMemcpyHostToDevice, s_left));
    CUDA_CHECK(cudaEventRecord(weights_ready, s_left));
    CUDA_CHECK(cudaMemcpyAsync(dx_left, hx_left, sizeof(float) * cols, cudaMemcpyHostToDevice, s_left));
    CUDA_CHECK(cudaMemcpyAsync(dx_right, hx_right, sizeof(float) * cols, cudaMemcpyHostToDevice, s_right));
    CUDA_CHECK(cudaStreamWaitEvent(s_right, weights_ready, 0));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemv(h_left, CUBLAS_OP_N, rows, cols, &alpha, dW, rows, dx_left, 1, &beta, dy_left, 1));
    CUBLAS_CHECK(cublasSgemv(h_right, CUBLAS_OP_N, rows, cols, &alpha, dW, rows, dx_right, 1, &beta, dy_right, 1));
    CUDA_CHECK(cudaMemcpyAsync(hy_left, dy_left, sizeof(float) * rows, cudaMemcpyDeviceToHost, s_left));
    CUDA_CHECK(cudaMemcpyAsync(hy_right, dy_right, sizeof(float) * rows, cudaMemcpyDeviceToHost, s_right));
    CUDA_CHECK(cudaStreamSynchronize(s_left));
    CUDA_CHECK(cudaStreamSynchronize(s_right));
    std::printf("left %f right %f\n", sum_host(hy_left, rows), sum_host(hy_right, rows));

    CUDA_CHECK(cudaFree(dW));
    CUDA_CHECK(cudaFree(dx_left));
    CUDA_CHECK(cudaFree(dx_right));
    CUDA_CHECK(cudaFree(dy_left));
    CUDA_CHECK(cudaFree(dy_right));
    CUDA_CHECK(cudaFreeHost(hW));
    CUDA_CHECK(cudaFreeHost(hx_left));
    CUDA_CHECK(cudaFreeHost(hx_right));
    CUDA_CHECK(cudaFreeHost(hy_left));
    CUDA_CHECK(cudaFreeHost(hy_right));
    CUDA_CHECK(cudaEventDestroy(weights_ready));
    CUBLAS_CHECK(cublasDestroy(h_left));
    CUBLAS_CHECK(cublasDestroy(h_right));
    CUDA_CHECK(cudaStreamDestroy(s_left));
    CUDA_CHECK(cudaStreamDestroy(s_right));
}

// Near miss: the handle and the stream come from a caller this file does not show (by
// contract the handle is bound to `stream`); the handle's stream is unknown, which is no
// evidence of a misuse.
void gemm_with_caller_handle(cublasHandle_t handle, cudaStream_t stream, int m, int n, int k)
{
    const size_t bytesC = sizeof(float) * m * n;
    float* hC;
    CUDA_CHECK(cudaMallocHost(&hC, bytesC));

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, sizeof(float) * m * k));
    CUDA_CHECK(cudaMalloc(&dB, sizeof(float) * k * n));
    CUDA_CHECK(cudaMalloc(&dC, bytesC));
    fill_ramp<<<grid_for(m * k), 256, 0, stream>>>(dA, m * k, 0.01f, 0.0f);
    fill_ramp<<<grid_for(k * n), 256, 0, stream>>>(dB, k * n, 0.02f, -0.5f);

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, dB, k, &beta, dC, m));
    CUDA_CHECK(cudaMemcpyAsync(hC, dC, bytesC, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("gemm checksum %f\n", sum_host(hC, (size_t)m * n));

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFreeHost(hC));
}

// ---------------------------------------------------------------------------------------
// cuBLASLt: the stream is cublasLtMatmul's last argument
// ---------------------------------------------------------------------------------------

struct LtGemmShape {
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t a, b, d;
};

static void lt_shape_create(LtGemmShape& s, int m, int n, int k)
{
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&s.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.a, CUDA_R_32F, m, k, m));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.b, CUDA_R_32F, k, n, k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.d, CUDA_R_32F, m, n, m));
}

static void lt_shape_destroy(LtGemmShape& s)
{
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(s.a));
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(s.b));
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(s.d));
    CUBLAS_CHECK(cublasLtMatmulDescDestroy(s.op));
}

// Fires: the activations are produced by a kernel on the non-blocking `stream`, but the
// matmul is given stream 0, the legacy stream, which does not wait for that kernel.
void lt_matmul_on_null_stream_after_producer(int m, int n, int k)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasLtHandle_t lt;
    CUBLAS_CHECK(cublasLtCreate(&lt));
    LtGemmShape shape;
    lt_shape_create(shape, m, n, k);

    const size_t ws_bytes = 4u << 20;
    float *dA, *dB, *dD;
    void* d_ws;
    CUDA_CHECK(cudaMalloc(&dA, sizeof(float) * m * k));
    CUDA_CHECK(cudaMalloc(&dB, sizeof(float) * k * n));
    CUDA_CHECK(cudaMalloc(&dD, sizeof(float) * m * n));
    CUDA_CHECK(cudaMalloc(&d_ws, ws_bytes));

    fill_ramp<<<grid_for(m * k), 256, 0, stream>>>(dA, m * k, 0.03f, -0.9f);
    std::vector<float> hB((size_t)k * n);
    fill_host(hB.data(), hB.size(), 1.0f);
    CUDA_CHECK(cudaMemcpy(dB, hB.data(), sizeof(float) * k * n, cudaMemcpyHostToDevice));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasLtMatmul(lt, shape.op, &alpha, dA, shape.a, dB, shape.b, &beta, dD, shape.d, dD, shape.d, nullptr, d_ws, ws_bytes, 0)); //~ missing_sync
    std::vector<float> hD((size_t)m * n);
    CUDA_CHECK(cudaMemcpy(hD.data(), dD, sizeof(float) * m * n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("lt checksum %f\n", sum_host(hD.data(), hD.size()));

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dD));
    CUDA_CHECK(cudaFree(d_ws));
    lt_shape_destroy(shape);
    CUBLAS_CHECK(cublasLtDestroy(lt));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Fires (relies_on_implicit_sync): the per-call workspace is freed right after the matmul
// is enqueued, while the matmul may still write it; only cudaFree's implicit wait saves it.
void lt_matmul_frees_workspace_early(int m, int n, int k)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasLtHandle_t lt;
    CUBLAS_CHECK(cublasLtCreate(&lt));
    LtGemmShape shape;
    lt_shape_create(shape, m, n, k);

    const size_t bytesA = sizeof(float) * m * k;
    const size_t bytesB = sizeof(float) * k * n;
    const size_t bytesD = sizeof(float) * m * n;
    float *hA, *hB, *hD;
    CUDA_CHECK(cudaMallocHost(&hA, bytesA));
    CUDA_CHECK(cudaMallocHost(&hB, bytesB));
    CUDA_CHECK(cudaMallocHost(&hD, bytesD));
    fill_host(hA, (size_t)m * k, 1.0f);
    fill_host(hB, (size_t)k * n, 1.0f);

    float *dA, *dB, *dD;
    CUDA_CHECK(cudaMalloc(&dA, bytesA));
    CUDA_CHECK(cudaMalloc(&dB, bytesB));
    CUDA_CHECK(cudaMalloc(&dD, bytesD));
    CUDA_CHECK(cudaMemcpyAsync(dA, hA, bytesA, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(dB, hB, bytesB, cudaMemcpyHostToDevice, stream));

    const size_t ws_bytes = 4u << 20;
    void* d_ws;
    CUDA_CHECK(cudaMalloc(&d_ws, ws_bytes));
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasLtMatmul(lt, shape.op, &alpha, dA, shape.a, dB, shape.b, &beta, dD, shape.d, dD, shape.d, nullptr, d_ws, ws_bytes, stream));
    CUDA_CHECK(cudaFree(d_ws)); //~ relies_on_implicit_sync
    CUDA_CHECK(cudaMemcpyAsync(hD, dD, bytesD, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("lt checksum %f\n", sum_host(hD, (size_t)m * n));

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dD));
    CUDA_CHECK(cudaFreeHost(hA));
    CUDA_CHECK(cudaFreeHost(hB));
    CUDA_CHECK(cudaFreeHost(hD));
    lt_shape_destroy(shape);
    CUBLAS_CHECK(cublasLtDestroy(lt));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: producer kernel, matmul and download all on `stream`; the workspace is freed
// after the stream is synchronized.
void lt_matmul_same_stream_free_after_sync(int m, int n, int k)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasLtHandle_t lt;
    CUBLAS_CHECK(cublasLtCreate(&lt));
    LtGemmShape shape;
    lt_shape_create(shape, m, n, k);

    const size_t bytesB = sizeof(float) * k * n;
    const size_t bytesD = sizeof(float) * m * n;
    float *hB, *hD;
    CUDA_CHECK(cudaMallocHost(&hB, bytesB));
    CUDA_CHECK(cudaMallocHost(&hD, bytesD));
    fill_host(hB, (size_t)k * n, 1.0f);

    const size_t ws_bytes = 4u << 20;
    float *dA, *dB, *dD;
    void* d_ws;
    CUDA_CHECK(cudaMalloc(&dA, sizeof(float) * m * k));
    CUDA_CHECK(cudaMalloc(&dB, bytesB));
    CUDA_CHECK(cudaMalloc(&dD, bytesD));
    CUDA_CHECK(cudaMalloc(&d_ws, ws_bytes));
    fill_ramp<<<grid_for(m * k), 256, 0, stream>>>(dA, m * k, 0.03f, -0.9f);
    CUDA_CHECK(cudaMemcpyAsync(dB, hB, bytesB, cudaMemcpyHostToDevice, stream));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasLtMatmul(lt, shape.op, &alpha, dA, shape.a, dB, shape.b, &beta, dD, shape.d, dD, shape.d, nullptr, d_ws, ws_bytes, stream));
    CUDA_CHECK(cudaMemcpyAsync(hD, dD, bytesD, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaFree(d_ws));
    std::printf("lt checksum %f\n", sum_host(hD, (size_t)m * n));

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dD));
    CUDA_CHECK(cudaFreeHost(hB));
    CUDA_CHECK(cudaFreeHost(hD));
    lt_shape_destroy(shape);
    CUBLAS_CHECK(cublasLtDestroy(lt));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// ---------------------------------------------------------------------------------------
// cuFFT: the plan's stream
// ---------------------------------------------------------------------------------------

static void fill_square_wave(cufftComplex* h, size_t count, int period)
{
    for (size_t i = 0; i < count; ++i) {
        h[i].x = ((int)(i % period) < period / 2) ? 1.0f : -1.0f;
        h[i].y = 0.0f;
    }
}

// Fires: the transform runs on the plan's non-blocking `stream`; the blocking copy of the
// spectrum runs on the legacy stream, which does not wait for it.
void fft_c2c_nonblocking_then_blocking_download(int nfft, int batch)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cufftHandle plan;
    CUFFT_CHECK(cufftPlan1d(&plan, nfft, CUFFT_C2C, batch));
    CUFFT_CHECK(cufftSetStream(plan, stream));

    const size_t count = (size_t)nfft * batch;
    const size_t bytes = sizeof(cufftComplex) * count;
    cufftComplex* h_signal;
    CUDA_CHECK(cudaMallocHost(&h_signal, bytes));
    fill_square_wave(h_signal, count, 16);

    cufftComplex *d_signal, *d_spectrum;
    CUDA_CHECK(cudaMalloc(&d_signal, bytes));
    CUDA_CHECK(cudaMalloc(&d_spectrum, bytes));
    CUDA_CHECK(cudaMemcpyAsync(d_signal, h_signal, bytes, cudaMemcpyHostToDevice, stream));

    CUFFT_CHECK(cufftExecC2C(plan, d_signal, d_spectrum, CUFFT_FORWARD));
    std::vector<cufftComplex> spectrum(count);
    CUDA_CHECK(cudaMemcpy(spectrum.data(), d_spectrum, bytes, cudaMemcpyDeviceToHost)); //~ missing_sync
    CUDA_CHECK(cudaStreamSynchronize(stream));
    int peak = 1;
    for (int i = 1; i < nfft / 2; ++i)
        if (fabsf(spectrum[i].x) + fabsf(spectrum[i].y) > fabsf(spectrum[peak].x) + fabsf(spectrum[peak].y)) peak = i;
    std::printf("peak bin %d\n", peak);

    CUDA_CHECK(cudaFree(d_signal));
    CUDA_CHECK(cudaFree(d_spectrum));
    CUDA_CHECK(cudaFreeHost(h_signal));
    CUFFT_CHECK(cufftDestroy(plan));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: the plan's stream is a blocking stream, so the legacy stream's blocking copy
// waits for the transform.
void fft_c2c_blocking_stream_blocking_download(int nfft, int batch)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    cufftHandle plan;
    CUFFT_CHECK(cufftPlan1d(&plan, nfft, CUFFT_C2C, batch));
    CUFFT_CHECK(cufftSetStream(plan, stream));

    const size_t count = (size_t)nfft * batch;
    const size_t bytes = sizeof(cufftComplex) * count;
    cufftComplex* h_signal;
    CUDA_CHECK(cudaMallocHost(&h_signal, bytes));
    fill_square_wave(h_signal, count, 16);

    cufftComplex *d_signal, *d_spectrum;
    CUDA_CHECK(cudaMalloc(&d_signal, bytes));
    CUDA_CHECK(cudaMalloc(&d_spectrum, bytes));
    CUDA_CHECK(cudaMemcpyAsync(d_signal, h_signal, bytes, cudaMemcpyHostToDevice, stream));

    CUFFT_CHECK(cufftExecC2C(plan, d_signal, d_spectrum, CUFFT_FORWARD));
    std::vector<cufftComplex> spectrum(count);
    CUDA_CHECK(cudaMemcpy(spectrum.data(), d_spectrum, bytes, cudaMemcpyDeviceToHost));
    int peak = 1;
    for (int i = 1; i < nfft / 2; ++i)
        if (fabsf(spectrum[i].x) + fabsf(spectrum[i].y) > fabsf(spectrum[peak].x) + fabsf(spectrum[peak].y)) peak = i;
    std::printf("peak bin %d\n", peak);

    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaFree(d_signal));
    CUDA_CHECK(cudaFree(d_spectrum));
    CUDA_CHECK(cudaFreeHost(h_signal));
    CUFFT_CHECK(cufftDestroy(plan));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Fires: the frame is windowed by a kernel on the non-blocking `stream`, but the plan was
// never given that stream: the R2C transform runs on the legacy stream and reads
// d_windowed without waiting for the kernel.
void fft_r2c_plan_on_legacy_after_window(int n)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cufftHandle plan;
    CUFFT_CHECK(cufftPlan1d(&plan, n, CUFFT_R2C, 1));

    const int bins = n / 2 + 1;
    float* h_frame;
    CUDA_CHECK(cudaMallocHost(&h_frame, sizeof(float) * n));
    fill_host(h_frame, n, 2.0f);

    float* d_frame;
    cufftReal* d_windowed;
    cufftComplex* d_spectrum;
    CUDA_CHECK(cudaMalloc(&d_frame, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_windowed, sizeof(cufftReal) * n));
    CUDA_CHECK(cudaMalloc(&d_spectrum, sizeof(cufftComplex) * bins));
    CUDA_CHECK(cudaMemcpyAsync(d_frame, h_frame, sizeof(float) * n, cudaMemcpyHostToDevice, stream));
    hann_window<<<grid_for(n), 256, 0, stream>>>(d_frame, d_windowed, n);

    CUFFT_CHECK(cufftExecR2C(plan, d_windowed, d_spectrum)); //~ missing_sync
    std::vector<cufftComplex> h_spectrum(bins);
    CUDA_CHECK(cudaMemcpy(h_spectrum.data(), d_spectrum, sizeof(cufftComplex) * bins, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    double power = 0.0;
    for (int i = 0; i < bins; ++i) power += h_spectrum[i].x * h_spectrum[i].x + h_spectrum[i].y * h_spectrum[i].y;
    std::printf("frame power %f\n", power);

    CUDA_CHECK(cudaFree(d_frame));
    CUDA_CHECK(cudaFree(d_windowed));
    CUDA_CHECK(cudaFree(d_spectrum));
    CUDA_CHECK(cudaFreeHost(h_frame));
    CUFFT_CHECK(cufftDestroy(plan));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: the plan is bound to `stream`, where the windowing kernel runs before it.
void fft_r2c_window_same_stream(int n)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cufftHandle plan;
    CUFFT_CHECK(cufftPlan1d(&plan, n, CUFFT_R2C, 1));
    CUFFT_CHECK(cufftSetStream(plan, stream));

    const int bins = n / 2 + 1;
    float* h_frame;
    cufftComplex* h_spectrum;
    CUDA_CHECK(cudaMallocHost(&h_frame, sizeof(float) * n));
    CUDA_CHECK(cudaMallocHost(&h_spectrum, sizeof(cufftComplex) * bins));
    fill_host(h_frame, n, 2.0f);

    float* d_frame;
    cufftReal* d_windowed;
    cufftComplex* d_spectrum;
    CUDA_CHECK(cudaMalloc(&d_frame, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_windowed, sizeof(cufftReal) * n));
    CUDA_CHECK(cudaMalloc(&d_spectrum, sizeof(cufftComplex) * bins));
    CUDA_CHECK(cudaMemcpyAsync(d_frame, h_frame, sizeof(float) * n, cudaMemcpyHostToDevice, stream));
    hann_window<<<grid_for(n), 256, 0, stream>>>(d_frame, d_windowed, n);

    CUFFT_CHECK(cufftExecR2C(plan, d_windowed, d_spectrum));
    CUDA_CHECK(cudaMemcpyAsync(h_spectrum, d_spectrum, sizeof(cufftComplex) * bins, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    double power = 0.0;
    for (int i = 0; i < bins; ++i) power += h_spectrum[i].x * h_spectrum[i].x + h_spectrum[i].y * h_spectrum[i].y;
    std::printf("frame power %f\n", power);

    CUDA_CHECK(cudaFree(d_frame));
    CUDA_CHECK(cudaFree(d_windowed));
    CUDA_CHECK(cudaFree(d_spectrum));
    CUDA_CHECK(cudaFreeHost(h_frame));
    CUDA_CHECK(cudaFreeHost(h_spectrum));
    CUFFT_CHECK(cufftDestroy(plan));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: the inverse transform runs on the legacy stream (the plan was never given a
// stream); cudaDeviceSynchronize waits for it before the output is scaled and copied on
// the non-blocking `stream`.
void fft_c2r_legacy_plan_device_synchronize(int n)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cufftHandle plan;
    CUFFT_CHECK(cufftPlan1d(&plan, n, CUFFT_C2R, 1));

    const int bins = n / 2 + 1;
    std::vector<cufftComplex> h_spectrum(bins);
    for (int i = 0; i < bins; ++i) {
        h_spectrum[i].x = (i == 3) ? (float)n / 2.0f : 0.0f;
        h_spectrum[i].y = 0.0f;
    }
    float* h_signal;
    CUDA_CHECK(cudaMallocHost(&h_signal, sizeof(float) * n));

    cufftComplex* d_spectrum;
    cufftReal* d_signal;
    CUDA_CHECK(cudaMalloc(&d_spectrum, sizeof(cufftComplex) * bins));
    CUDA_CHECK(cudaMalloc(&d_signal, sizeof(cufftReal) * n));
    CUDA_CHECK(cudaMemcpy(d_spectrum, h_spectrum.data(), sizeof(cufftComplex) * bins, cudaMemcpyHostToDevice));

    CUFFT_CHECK(cufftExecC2R(plan, d_spectrum, d_signal));
    CUDA_CHECK(cudaDeviceSynchronize());
    scale_in_place<<<grid_for(n), 256, 0, stream>>>(d_signal, n, 1.0f / (float)n);
    CUDA_CHECK(cudaMemcpyAsync(h_signal, d_signal, sizeof(float) * n, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("signal[0] = %f\n", h_signal[0]);

    CUDA_CHECK(cudaFree(d_spectrum));
    CUDA_CHECK(cudaFree(d_signal));
    CUDA_CHECK(cudaFreeHost(h_signal));
    CUFFT_CHECK(cufftDestroy(plan));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// ---------------------------------------------------------------------------------------
// cuRAND (host API): the generator's stream
// ---------------------------------------------------------------------------------------

// Fires: the generator was never given `stream`, so the uniforms are generated on the
// legacy stream; the kernel on the non-blocking `stream` reads them without waiting.
void curand_uniform_on_legacy_consumed_on_stream(int n)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    curandGenerator_t gen;
    CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 1234ULL));

    float *d_uniform, *d_samples, *h_samples;
    CUDA_CHECK(cudaMalloc(&d_uniform, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_samples, sizeof(float) * n));
    CUDA_CHECK(cudaMallocHost(&h_samples, sizeof(float) * n));

    CURAND_CHECK(curandGenerateUniform(gen, d_uniform, n));
    affine_map<<<grid_for(n), 256, 0, stream>>>(d_uniform, d_samples, n, -1.0f, 1.0f); //~ missing_sync
    CUDA_CHECK(cudaMemcpyAsync(h_samples, d_samples, sizeof(float) * n, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("sample mean %f\n", sum_host(h_samples, n) / n);

    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(d_uniform));
    CUDA_CHECK(cudaFree(d_samples));
    CUDA_CHECK(cudaFreeHost(h_samples));
    CURAND_CHECK(curandDestroyGenerator(gen));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: curandSetStream puts the generator on the consumer's stream.
void curand_uniform_same_stream_consumer(int n)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    curandGenerator_t gen;
    CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 1234ULL));
    CURAND_CHECK(curandSetStream(gen, stream));

    float *d_uniform, *d_samples, *h_samples;
    CUDA_CHECK(cudaMalloc(&d_uniform, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_samples, sizeof(float) * n));
    CUDA_CHECK(cudaMallocHost(&h_samples, sizeof(float) * n));

    CURAND_CHECK(curandGenerateUniform(gen, d_uniform, n));
    affine_map<<<grid_for(n), 256, 0, stream>>>(d_uniform, d_samples, n, -1.0f, 1.0f);
    CUDA_CHECK(cudaMemcpyAsync(h_samples, d_samples, sizeof(float) * n, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("sample mean %f\n", sum_host(h_samples, n) / n);

    CUDA_CHECK(cudaFree(d_uniform));
    CUDA_CHECK(cudaFree(d_samples));
    CUDA_CHECK(cudaFreeHost(h_samples));
    CURAND_CHECK(curandDestroyGenerator(gen));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Fires: both streams are blocking streams, which order themselves with the legacy stream
// but not with each other: the copy on copy_stream may read the noise before the
// generator on gen_stream wrote it.
void curand_normal_read_on_other_blocking_stream(int n)
{
    cudaStream_t gen_stream, copy_stream;
    CUDA_CHECK(cudaStreamCreate(&gen_stream));
    CUDA_CHECK(cudaStreamCreate(&copy_stream));
    curandGenerator_t gen;
    CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 42ULL));
    CURAND_CHECK(curandSetStream(gen, gen_stream));

    const int count = n & ~1;  // curandGenerateNormal wants an even count
    float *d_noise, *h_noise;
    CUDA_CHECK(cudaMalloc(&d_noise, sizeof(float) * count));
    CUDA_CHECK(cudaMallocHost(&h_noise, sizeof(float) * count));

    CURAND_CHECK(curandGenerateNormal(gen, d_noise, count, 0.0f, 1.0f));
    CUDA_CHECK(cudaMemcpyAsync(h_noise, d_noise, sizeof(float) * count, cudaMemcpyDeviceToHost, copy_stream)); //~ missing_sync
    CUDA_CHECK(cudaStreamSynchronize(copy_stream));
    double var = 0.0;
    for (int i = 0; i < count; ++i) var += (double)h_noise[i] * h_noise[i];
    std::printf("noise variance %f\n", var / count);

    CUDA_CHECK(cudaStreamSynchronize(gen_stream));
    CUDA_CHECK(cudaFree(d_noise));
    CUDA_CHECK(cudaFreeHost(h_noise));
    CURAND_CHECK(curandDestroyGenerator(gen));
    CUDA_CHECK(cudaStreamDestroy(gen_stream));
    CUDA_CHECK(cudaStreamDestroy(copy_stream));
}

// Near miss: an event recorded after the generator on gen_stream, waited on by
// copy_stream before the download.
void curand_normal_event_between_streams(int n)
{
    cudaStream_t gen_stream, copy_stream;
    CUDA_CHECK(cudaStreamCreate(&gen_stream));
    CUDA_CHECK(cudaStreamCreate(&copy_stream));
    cudaEvent_t generated;
    CUDA_CHECK(cudaEventCreateWithFlags(&generated, cudaEventDisableTiming));
    curandGenerator_t gen;
    CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 42ULL));
    CURAND_CHECK(curandSetStream(gen, gen_stream));

    const int count = n & ~1;
    float *d_noise, *h_noise;
    CUDA_CHECK(cudaMalloc(&d_noise, sizeof(float) * count));
    CUDA_CHECK(cudaMallocHost(&h_noise, sizeof(float) * count));

    CURAND_CHECK(curandGenerateNormal(gen, d_noise, count, 0.0f, 1.0f));
    CUDA_CHECK(cudaEventRecord(generated, gen_stream));
    CUDA_CHECK(cudaStreamWaitEvent(copy_stream, generated, 0));
    CUDA_CHECK(cudaMemcpyAsync(h_noise, d_noise, sizeof(float) * count, cudaMemcpyDeviceToHost, copy_stream));
    CUDA_CHECK(cudaStreamSynchronize(copy_stream));
    double var = 0.0;
    for (int i = 0; i < count; ++i) var += (double)h_noise[i] * h_noise[i];
    std::printf("noise variance %f\n", var / count);

    CUDA_CHECK(cudaStreamSynchronize(gen_stream));
    CUDA_CHECK(cudaFree(d_noise));
    CUDA_CHECK(cudaFreeHost(h_noise));
    CUDA_CHECK(cudaEventDestroy(generated));
    CURAND_CHECK(curandDestroyGenerator(gen));
    CUDA_CHECK(cudaStreamDestroy(gen_stream));
    CUDA_CHECK(cudaStreamDestroy(copy_stream));
}

// ---------------------------------------------------------------------------------------
// cuDNN: the handle's stream
// ---------------------------------------------------------------------------------------

static cudnnTensorDescriptor_t make_nchw(int n, int c, int h, int w)
{
    cudnnTensorDescriptor_t desc;
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&desc));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
    return desc;
}

// Fires: the cuDNN handle was never given `stream`, so the activation runs on the legacy
// stream; the download on the non-blocking `stream` does not wait for it.
void cudnn_activation_without_set_stream(int n, int c, int h, int w)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudnnHandle_t cudnn;
    CUDNN_CHECK(cudnnCreate(&cudnn));
    cudnnTensorDescriptor_t desc = make_nchw(n, c, h, w);
    cudnnActivationDescriptor_t relu;
    CUDNN_CHECK(cudnnCreateActivationDescriptor(&relu));
    CUDNN_CHECK(cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));

    const size_t count = (size_t)n * c * h * w;
    const size_t bytes = sizeof(float) * count;
    float *hx, *hy, *dx, *dy;
    CUDA_CHECK(cudaMallocHost(&hx, bytes));
    CUDA_CHECK(cudaMallocHost(&hy, bytes));
    fill_host(hx, count, 2.0f);
    CUDA_CHECK(cudaMalloc(&dx, bytes));
    CUDA_CHECK(cudaMalloc(&dy, bytes));
    CUDA_CHECK(cudaMemcpyAsync(dx, hx, bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    const float alpha = 1.0f, beta = 0.0f;
    CUDNN_CHECK(cudnnActivationForward(cudnn, relu, &alpha, desc, dx, &beta, desc, dy));
    CUDA_CHECK(cudaMemcpyAsync(hy, dy, bytes, cudaMemcpyDeviceToHost, stream)); //~ missing_sync
    CUDA_CHECK(cudaStreamSynchronize(stream));
    size_t active = 0;
    for (size_t i = 0; i < count; ++i) active += hy[i] > 0.0f;
    std::printf("%zu of %zu units active\n", active, count);

    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFreeHost(hx));
    CUDA_CHECK(cudaFreeHost(hy));
    CUDNN_CHECK(cudnnDestroyActivationDescriptor(relu));
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(desc));
    CUDNN_CHECK(cudnnDestroy(cudnn));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: cudnnSetStream, then activation and softmax on that stream, the download on
// it, and a synchronize before the host reads.
void cudnn_activation_softmax_bound_stream(int n, int c, int h, int w)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudnnHandle_t cudnn;
    CUDNN_CHECK(cudnnCreate(&cudnn));
    CUDNN_CHECK(cudnnSetStream(cudnn, stream));
    cudnnTensorDescriptor_t desc = make_nchw(n, c, h, w);
    cudnnActivationDescriptor_t act;
    CUDNN_CHECK(cudnnCreateActivationDescriptor(&act));
    CUDNN_CHECK(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_TANH, CUDNN_NOT_PROPAGATE_NAN, 0.0));

    const size_t count = (size_t)n * c * h * w;
    const size_t bytes = sizeof(float) * count;
    float *hx, *hp, *dx, *dy, *dp;
    CUDA_CHECK(cudaMallocHost(&hx, bytes));
    CUDA_CHECK(cudaMallocHost(&hp, bytes));
    fill_host(hx, count, 4.0f);
    CUDA_CHECK(cudaMalloc(&dx, bytes));
    CUDA_CHECK(cudaMalloc(&dy, bytes));
    CUDA_CHECK(cudaMalloc(&dp, bytes));
    CUDA_CHECK(cudaMemcpyAsync(dx, hx, bytes, cudaMemcpyHostToDevice, stream));

    const float alpha = 1.0f, beta = 0.0f;
    CUDNN_CHECK(cudnnActivationForward(cudnn, act, &alpha, desc, dx, &beta, desc, dy));
    CUDNN_CHECK(cudnnSoftmaxForward(cudnn, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &alpha, desc, dy, &beta, desc, dp));
    CUDA_CHECK(cudaMemcpyAsync(hp, dp, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("probability mass %f (expected %d)\n", sum_host(hp, count), n * h * w);

    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFree(dp));
    CUDA_CHECK(cudaFreeHost(hx));
    CUDA_CHECK(cudaFreeHost(hp));
    CUDNN_CHECK(cudnnDestroyActivationDescriptor(act));
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(desc));
    CUDNN_CHECK(cudnnDestroy(cudnn));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Near miss: the handle stays on the legacy stream, and `stream` is a blocking stream:
// cudnnAddTensor waits for the uploads on it, and the download enqueued on it afterwards
// waits for cudnnAddTensor.
void cudnn_add_tensor_legacy_with_blocking_stream(int n, int c, int h, int w)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    cudnnHandle_t cudnn;
    CUDNN_CHECK(cudnnCreate(&cudnn));
    cudnnTensorDescriptor_t bias_desc = make_nchw(1, c, 1, 1);
    cudnnTensorDescriptor_t out_desc = make_nchw(n, c, h, w);

    const size_t count = (size_t)n * c * h * w;
    const size_t bytes = sizeof(float) * count;
    float *h_bias, *h_out, *d_bias, *d_out;
    CUDA_CHECK(cudaMallocHost(&h_bias, sizeof(float) * c));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));
    fill_host(h_bias, c, 1.0f);
    fill_host(h_out, count, 3.0f);
    CUDA_CHECK(cudaMalloc(&d_bias, sizeof(float) * c));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMemcpyAsync(d_bias, h_bias, sizeof(float) * c, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(d_out, h_out, bytes, cudaMemcpyHostToDevice, stream));

    const float one = 1.0f;
    CUDNN_CHECK(cudnnAddTensor(cudnn, &one, bias_desc, d_bias, &one, out_desc, d_out));
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("biased sum %f\n", sum_host(h_out, count));

    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(d_bias));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFreeHost(h_bias));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(bias_desc));
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(out_desc));
    CUDNN_CHECK(cudnnDestroy(cudnn));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

struct ConvLayer {
    cudnnTensorDescriptor_t x_desc, y_desc;
    cudnnFilterDescriptor_t w_desc;
    cudnnConvolutionDescriptor_t conv_desc;
    int out_n, out_c, out_h, out_w;
    size_t ws_bytes;
};

// Descriptors and the workspace size of a same-padded r-by-r convolution; no data moves.
static void conv_layer_create(ConvLayer& L, cudnnHandle_t cudnn, int n, int c, int h, int w, int k, int r)
{
    L.x_desc = make_nchw(n, c, h, w);
    CUDNN_CHECK(cudnnCreateFilterDescriptor(&L.w_desc));
    CUDNN_CHECK(cudnnSetFilter4dDescriptor(L.w_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, r, r));
    CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&L.conv_desc));
    CUDNN_CHECK(cudnnSetConvolution2dDescriptor(L.conv_desc, r / 2, r / 2, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(L.conv_desc, L.x_desc, L.w_desc, &L.out_n, &L.out_c, &L.out_h, &L.out_w));
    L.y_desc = make_nchw(L.out_n, L.out_c, L.out_h, L.out_w);
    CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(cudnn, L.x_desc, L.w_desc, L.conv_desc, L.y_desc, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &L.ws_bytes));
}

static void conv_layer_destroy(ConvLayer& L)
{
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(L.x_desc));
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(L.y_desc));
    CUDNN_CHECK(cudnnDestroyFilterDescriptor(L.w_desc));
    CUDNN_CHECK(cudnnDestroyConvolutionDescriptor(L.conv_desc));
}

// Fires: the convolution writes dy on conv_stream; the bias + ReLU kernel reads it on
// post_stream, another non-blocking stream, with no event between them.
void cudnn_conv_output_used_on_other_stream(int n, int c, int h, int w, int k)
{
    cudaStream_t conv_stream, post_stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&conv_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&post_stream, cudaStreamNonBlocking));
    cudnnHandle_t cudnn;
    CUDNN_CHECK(cudnnCreate(&cudnn));
    CUDNN_CHECK(cudnnSetStream(cudnn, conv_stream));
    ConvLayer L;
    conv_layer_create(L, cudnn, n, c, h, w, k, 3);

    const size_t x_count = (size_t)n * c * h * w;
    const size_t w_count = (size_t)k * c * 3 * 3;
    const int inner = L.out_h * L.out_w;
    const int y_count = L.out_n * L.out_c * inner;
    float *hx, *hw, *h_bias, *h_out;
    CUDA_CHECK(cudaMallocHost(&hx, sizeof(float) * x_count));
    CUDA_CHECK(cudaMallocHost(&hw, sizeof(float) * w_count));
    CUDA_CHECK(cudaMallocHost(&h_bias, sizeof(float) * k));
    CUDA_CHECK(cudaMallocHost(&h_out, sizeof(float) * y_count));
    fill_host(hx, x_count, 1.0f);
    fill_host(hw, w_count, 0.2f);
    fill_host(h_bias, k, 0.1f);

    float *dx, *dw, *dy, *d_bias, *d_out;
    void* d_ws;
    CUDA_CHECK(cudaMalloc(&dx, sizeof(float) * x_count));
    CUDA_CHECK(cudaMalloc(&dw, sizeof(float) * w_count));
    CUDA_CHECK(cudaMalloc(&dy, sizeof(float) * y_count));
    CUDA_CHECK(cudaMalloc(&d_bias, sizeof(float) * k));
    CUDA_CHECK(cudaMalloc(&d_out, sizeof(float) * y_count));
    CUDA_CHECK(cudaMalloc(&d_ws, L.ws_bytes));
    CUDA_CHECK(cudaMemcpyAsync(dx, hx, sizeof(float) * x_count, cudaMemcpyHostToDevice, conv_stream));
    CUDA_CHECK(cudaMemcpyAsync(dw, hw, sizeof(float) * w_count, cudaMemcpyHostToDevice, conv_stream));
    CUDA_CHECK(cudaMemcpyAsync(d_bias, h_bias, sizeof(float) * k, cudaMemcpyHostToDevice, post_stream));

    const float alpha = 1.0f, beta = 0.0f;
    CUDNN_CHECK(cudnnConvolutionForward(cudnn, &alpha, L.x_desc, dx, L.w_desc, dw, L.conv_desc, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, d_ws, L.ws_bytes, &beta, L.y_desc, dy));
    bias_relu<<<grid_for(y_count), 256, 0, post_stream>>>(dy, d_bias, d_out, y_count, inner, k); //~ missing_sync
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, sizeof(float) * y_count, cudaMemcpyDeviceToHost, post_stream));
    CUDA_CHECK(cudaStreamSynchronize(post_stream));
    CUDA_CHECK(cudaStreamSynchronize(conv_stream));
    std::printf("feature map sum %f\n", sum_host(h_out, y_count));

    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dw));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFree(d_bias));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_ws));
    CUDA_CHECK(cudaFreeHost(hx));
    CUDA_CHECK(cudaFreeHost(hw));
    CUDA_CHECK(cudaFreeHost(h_bias));
    CUDA_CHECK(cudaFreeHost(h_out));
    conv_layer_destroy(L);
    CUDNN_CHECK(cudnnDestroy(cudnn));
    CUDA_CHECK(cudaStreamDestroy(conv_stream));
    CUDA_CHECK(cudaStreamDestroy(post_stream));
}

// Near miss: an event recorded after the convolution on conv_stream; post_stream waits on
// it before the bias + ReLU kernel.
void cudnn_conv_output_event_wait(int n, int c, int h, int w, int k)
{
    cudaStream_t conv_stream, post_stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&conv_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&post_stream, cudaStreamNonBlocking));
    cudaEvent_t conv_done;
    CUDA_CHECK(cudaEventCreateWithFlags(&conv_done, cudaEventDisableTiming));
    cudnnHandle_t cudnn;
    CUDNN_CHECK(cudnnCreate(&cudnn));
    CUDNN_CHECK(cudnnSetStream(cudnn, conv_stream));
    ConvLayer L;
    conv_layer_create(L, cudnn, n, c, h, w, k, 3);

    const size_t x_count = (size_t)n * c * h * w;
    const size_t w_count = (size_t)k * c * 3 * 3;
    const int inner = L.out_h * L.out_w;
    const int y_count = L.out_n * L.out_c * inner;
    float *hx, *hw, *h_bias, *h_out;
    CUDA_CHECK(cudaMallocHost(&hx, sizeof(float) * x_count));
    CUDA_CHECK(cudaMallocHost(&hw, sizeof(float) * w_count));
    CUDA_CHECK(cudaMallocHost(&h_bias, sizeof(float) * k));
    CUDA_CHECK(cudaMallocHost(&h_out, sizeof(float) * y_count));
    fill_host(hx, x_count, 1.0f);
    fill_host(hw, w_count, 0.2f);
    fill_host(h_bias, k, 0.1f);

    float *dx, *dw, *dy, *d_bias, *d_out;
    void* d_ws;
    CUDA_CHECK(cudaMalloc(&dx, sizeof(float) * x_count));
    CUDA_CHECK(cudaMalloc(&dw, sizeof(float) * w_count));
    CUDA_CHECK(cudaMalloc(&dy, sizeof(float) * y_count));
    CUDA_CHECK(cudaMalloc(&d_bias, sizeof(float) * k));
    CUDA_CHECK(cudaMalloc(&d_out, sizeof(float) * y_count));
    CUDA_CHECK(cudaMalloc(&d_ws, L.ws_bytes));
    CUDA_CHECK(cudaMemcpyAsync(dx, hx, sizeof(float) * x_count, cudaMemcpyHostToDevice, conv_stream));
    CUDA_CHECK(cudaMemcpyAsync(dw, hw, sizeof(float) * w_count, cudaMemcpyHostToDevice, conv_stream));
    CUDA_CHECK(cudaMemcpyAsync(d_bias, h_bias, sizeof(float) * k, cudaMemcpyHostToDevice, post_stream));

    const float alpha = 1.0f, beta = 0.0f;
    CUDNN_CHECK(cudnnConvolutionForward(cudnn, &alpha, L.x_desc, dx, L.w_desc, dw, L.conv_desc, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, d_ws, L.ws_bytes, &beta, L.y_desc, dy));
    CUDA_CHECK(cudaEventRecord(conv_done, conv_stream));
    CUDA_CHECK(cudaStreamWaitEvent(post_stream, conv_done, 0));
    bias_relu<<<grid_for(y_count), 256, 0, post_stream>>>(dy, d_bias, d_out, y_count, inner, k);
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, sizeof(float) * y_count, cudaMemcpyDeviceToHost, post_stream));
    CUDA_CHECK(cudaStreamSynchronize(post_stream));
    std::printf("feature map sum %f\n", sum_host(h_out, y_count));

    CUDA_CHECK(cudaStreamSynchronize(conv_stream));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dw));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFree(d_bias));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_ws));
    CUDA_CHECK(cudaFreeHost(hx));
    CUDA_CHECK(cudaFreeHost(hw));
    CUDA_CHECK(cudaFreeHost(h_bias));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaEventDestroy(conv_done));
    conv_layer_destroy(L);
    CUDNN_CHECK(cudnnDestroy(cudnn));
    CUDA_CHECK(cudaStreamDestroy(conv_stream));
    CUDA_CHECK(cudaStreamDestroy(post_stream));
}

// ---------------------------------------------------------------------------------------
// NCCL: the stream is each call's last argument
// ---------------------------------------------------------------------------------------

// A communicator over this process's current device (a group of one rank here; the same
// code runs once per rank in a multi-GPU job).
static ncclComm_t init_local_comm()
{
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    ncclComm_t comm;
    NCCL_CHECK(ncclCommInitAll(&comm, 1, &device));
    return comm;
}

// Fires: the gradients are computed on compute_stream and all-reduced on comm_stream (both
// non-blocking) with no event between them: the all-reduce may read them half-written.
void nccl_allreduce_without_compute_event(int n)
{
    ncclComm_t comm = init_local_comm();
    cudaStream_t compute_stream, comm_stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&compute_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&comm_stream, cudaStreamNonBlocking));

    float *h_pred, *h_target;
    CUDA_CHECK(cudaMallocHost(&h_pred, sizeof(float) * n));
    CUDA_CHECK(cudaMallocHost(&h_target, sizeof(float) * n));
    fill_host(h_pred, n, 1.0f);
    fill_host(h_target, n, 0.8f);

    float *d_pred, *d_target, *d_grad;
    CUDA_CHECK(cudaMalloc(&d_pred, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_target, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_grad, sizeof(float) * n));
    CUDA_CHECK(cudaMemcpyAsync(d_pred, h_pred, sizeof(float) * n, cudaMemcpyHostToDevice, compute_stream));
    CUDA_CHECK(cudaMemcpyAsync(d_target, h_target, sizeof(float) * n, cudaMemcpyHostToDevice, compute_stream));
    mse_grad<<<grid_for(n), 256, 0, compute_stream>>>(d_pred, d_target, d_grad, n);

    NCCL_CHECK(ncclAllReduce(d_grad, d_grad, n, ncclFloat, ncclSum, comm, comm_stream)); //~ missing_sync
    CUDA_CHECK(cudaStreamSynchronize(comm_stream));
    CUDA_CHECK(cudaStreamSynchronize(compute_stream));
    std::vector<float> h_grad(n);
    CUDA_CHECK(cudaMemcpy(h_grad.data(), d_grad, sizeof(float) * n, cudaMemcpyDeviceToHost));
    std::printf("gradient sum %f\n", sum_host(h_grad.data(), n));

    CUDA_CHECK(cudaFree(d_pred));
    CUDA_CHECK(cudaFree(d_target));
    CUDA_CHECK(cudaFree(d_grad));
    CUDA_CHECK(cudaFreeHost(h_pred));
    CUDA_CHECK(cudaFreeHost(h_target));
    CUDA_CHECK(cudaStreamDestroy(compute_stream));
    CUDA_CHECK(cudaStreamDestroy(comm_stream));
    NCCL_CHECK(ncclCommDestroy(comm));
}

// Near miss: an event recorded after the gradient kernel; comm_stream waits on it before
// the all-reduce, and is synchronized before the download.
void nccl_allreduce_after_compute_event(int n)
{
    ncclComm_t comm = init_local_comm();
    cudaStream_t compute_stream, comm_stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&compute_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&comm_stream, cudaStreamNonBlocking));
    cudaEvent_t grads_ready;
    CUDA_CHECK(cudaEventCreateWithFlags(&grads_ready, cudaEventDisableTiming));

    float *h_pred, *h_target, *h_grad;
    CUDA_CHECK(cudaMallocHost(&h_pred, sizeof(float) * n));
    CUDA_CHECK(cudaMallocHost(&h_target, sizeof(float) * n));
    CUDA_CHECK(cudaMallocHost(&h_grad, sizeof(float) * n));
    fill_host(h_pred, n, 1.0f);
    fill_host(h_target, n, 0.8f);

    float *d_pred, *d_target, *d_grad;
    CUDA_CHECK(cudaMalloc(&d_pred, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_target, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_grad, sizeof(float) * n));
    CUDA_CHECK(cudaMemcpyAsync(d_pred, h_pred, sizeof(float) * n, cudaMemcpyHostToDevice, compute_stream));
    CUDA_CHECK(cudaMemcpyAsync(d_target, h_target, sizeof(float) * n, cudaMemcpyHostToDevice, compute_stream));
    mse_grad<<<grid_for(n), 256, 0, compute_stream>>>(d_pred, d_target, d_grad, n);
    CUDA_CHECK(cudaEventRecord(grads_ready, compute_stream));

    CUDA_CHECK(cudaStreamWaitEvent(comm_stream, grads_ready, 0));
    NCCL_CHECK(ncclAllReduce(d_grad, d_grad, n, ncclFloat, ncclSum, comm, comm_stream));
    CUDA_CHECK(cudaMemcpyAsync(h_grad, d_grad, sizeof(float) * n, cudaMemcpyDeviceToHost, comm_stream));
    CUDA_CHECK(cudaStreamSynchronize(comm_stream));
    std::printf("gradient sum %f\n", sum_host(h_grad, n));

    CUDA_CHECK(cudaStreamSynchronize(compute_stream));
    CUDA_CHECK(cudaFree(d_pred));
    CUDA_CHECK(cudaFree(d_target));
    CUDA_CHECK(cudaFree(d_grad));
    CUDA_CHECK(cudaFreeHost(h_pred));
    CUDA_CHECK(cudaFreeHost(h_target));
    CUDA_CHECK(cudaFreeHost(h_grad));
    CUDA_CHECK(cudaEventDestroy(grads_ready));
    CUDA_CHECK(cudaStreamDestroy(compute_stream));
    CUDA_CHECK(cudaStreamDestroy(comm_stream));
    NCCL_CHECK(ncclCommDestroy(comm));
}

// Fires: the halo exchange runs on the non-blocking `stream`; the blocking copy of the
// received ghost row runs on the legacy stream, which does not wait for ncclRecv.
void nccl_halo_recv_blocking_download(int nx, int ny)
{
    ncclComm_t comm = init_local_comm();
    int nranks = 1, rank = 0;
    NCCL_CHECK(ncclCommCount(comm, &nranks));
    NCCL_CHECK(ncclCommUserRank(comm, &rank));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    const size_t field_bytes = sizeof(float) * nx * ny;
    float* h_field;
    CUDA_CHECK(cudaMallocHost(&h_field, field_bytes));
    fill_host(h_field, (size_t)nx * ny, 1.0f);

    float *d_field, *d_send, *d_recv;
    CUDA_CHECK(cudaMalloc(&d_field, field_bytes));
    CUDA_CHECK(cudaMalloc(&d_send, sizeof(float) * nx));
    CUDA_CHECK(cudaMalloc(&d_recv, sizeof(float) * nx));
    CUDA_CHECK(cudaMemcpyAsync(d_field, h_field, field_bytes, cudaMemcpyHostToDevice, stream));
    pack_halo<<<grid_for(nx), 256, 0, stream>>>(d_field, d_send, nx, ny);

    const int peer = (rank + 1) % nranks;
    NCCL_CHECK(ncclGroupStart());
    NCCL_CHECK(ncclSend(d_send, nx, ncclFloat, peer, comm, stream));
    NCCL_CHECK(ncclRecv(d_recv, nx, ncclFloat, peer, comm, stream));
    NCCL_CHECK(ncclGroupEnd());
    std::vector<float> ghost(nx);
    CUDA_CHECK(cudaMemcpy(ghost.data(), d_recv, sizeof(float) * nx, cudaMemcpyDeviceToHost)); //~ missing_sync
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("ghost row sum %f\n", sum_host(ghost.data(), nx));

    CUDA_CHECK(cudaFree(d_field));
    CUDA_CHECK(cudaFree(d_send));
    CUDA_CHECK(cudaFree(d_recv));
    CUDA_CHECK(cudaFreeHost(h_field));
    CUDA_CHECK(cudaStreamDestroy(stream));
    NCCL_CHECK(ncclCommDestroy(comm));
}

// Near miss: the same exchange, with the stream synchronized after the group and before
// the blocking copy.
void nccl_halo_sync_then_download(int nx, int ny)
{
    ncclComm_t comm = init_local_comm();
    int nranks = 1, rank = 0;
    NCCL_CHECK(ncclCommCount(comm, &nranks));
    NCCL_CHECK(ncclCommUserRank(comm, &rank));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    const size_t field_bytes = sizeof(float) * nx * ny;
    float* h_field;
    CUDA_CHECK(cudaMallocHost(&h_field, field_bytes));
    fill_host(h_field, (size_t)nx * ny, 1.0f);

    float *d_field, *d_send, *d_recv;
    CUDA_CHECK(cudaMalloc(&d_field, field_bytes));
    CUDA_CHECK(cudaMalloc(&d_send, sizeof(float) * nx));
    CUDA_CHECK(cudaMalloc(&d_recv, sizeof(float) * nx));
    CUDA_CHECK(cudaMemcpyAsync(d_field, h_field, field_bytes, cudaMemcpyHostToDevice, stream));
    pack_halo<<<grid_for(nx), 256, 0, stream>>>(d_field, d_send, nx, ny);

    const int peer = (rank + 1) % nranks;
    NCCL_CHECK(ncclGroupStart());
    NCCL_CHECK(ncclSend(d_send, nx, ncclFloat, peer, comm, stream));
    NCCL_CHECK(ncclRecv(d_recv, nx, ncclFloat, peer, comm, stream));
    NCCL_CHECK(ncclGroupEnd());
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<float> ghost(nx);
    CUDA_CHECK(cudaMemcpy(ghost.data(), d_recv, sizeof(float) * nx, cudaMemcpyDeviceToHost));
    std::printf("ghost row sum %f\n", sum_host(ghost.data(), nx));

    CUDA_CHECK(cudaFree(d_field));
    CUDA_CHECK(cudaFree(d_send));
    CUDA_CHECK(cudaFree(d_recv));
    CUDA_CHECK(cudaFreeHost(h_field));
    CUDA_CHECK(cudaStreamDestroy(stream));
    NCCL_CHECK(ncclCommDestroy(comm));
}

// Near miss: parameters broadcast in place on a blocking stream; the legacy stream's
// blocking copy waits for the broadcast.
void nccl_bcast_blocking_stream_blocking_download(int n)
{
    ncclComm_t comm = init_local_comm();
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    float* h_params;
    CUDA_CHECK(cudaMallocHost(&h_params, sizeof(float) * n));
    fill_host(h_params, n, 0.01f);
    float* d_params;
    CUDA_CHECK(cudaMalloc(&d_params, sizeof(float) * n));
    CUDA_CHECK(cudaMemcpyAsync(d_params, h_params, sizeof(float) * n, cudaMemcpyHostToDevice, stream));

    NCCL_CHECK(ncclBcast(d_params, n, ncclFloat, 0, comm, stream));
    std::vector<float> check(n);
    CUDA_CHECK(cudaMemcpy(check.data(), d_params, sizeof(float) * n, cudaMemcpyDeviceToHost));
    std::printf("parameter checksum %f\n", sum_host(check.data(), n));

    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaFree(d_params));
    CUDA_CHECK(cudaFreeHost(h_params));
    CUDA_CHECK(cudaStreamDestroy(stream));
    NCCL_CHECK(ncclCommDestroy(comm));
}

// Near miss: sharded gradient averaging (reduce-scatter, scale, all-gather) with the
// producer kernel, both collectives and the download on one stream.
void nccl_reduce_scatter_all_gather_same_stream(int shard)
{
    ncclComm_t comm = init_local_comm();
    int nranks = 1;
    NCCL_CHECK(ncclCommCount(comm, &nranks));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    const int n = shard * nranks;
    float *h_pred, *h_target, *h_avg;
    CUDA_CHECK(cudaMallocHost(&h_pred, sizeof(float) * n));
    CUDA_CHECK(cudaMallocHost(&h_target, sizeof(float) * n));
    CUDA_CHECK(cudaMallocHost(&h_avg, sizeof(float) * n));
    fill_host(h_pred, n, 1.0f);
    fill_host(h_target, n, 0.5f);

    float *d_pred, *d_target, *d_grad, *d_shard, *d_avg;
    CUDA_CHECK(cudaMalloc(&d_pred, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_target, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_grad, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_shard, sizeof(float) * shard));
    CUDA_CHECK(cudaMalloc(&d_avg, sizeof(float) * n));
    CUDA_CHECK(cudaMemcpyAsync(d_pred, h_pred, sizeof(float) * n, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(d_target, h_target, sizeof(float) * n, cudaMemcpyHostToDevice, stream));
    mse_grad<<<grid_for(n), 256, 0, stream>>>(d_pred, d_target, d_grad, n);

    NCCL_CHECK(ncclReduceScatter(d_grad, d_shard, shard, ncclFloat, ncclSum, comm, stream));
    scale_in_place<<<grid_for(shard), 256, 0, stream>>>(d_shard, shard, 1.0f / (float)nranks);
    NCCL_CHECK(ncclAllGather(d_shard, d_avg, shard, ncclFloat, comm, stream));
    CUDA_CHECK(cudaMemcpyAsync(h_avg, d_avg, sizeof(float) * n, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("averaged gradient sum %f\n", sum_host(h_avg, n));

    CUDA_CHECK(cudaFree(d_pred));
    CUDA_CHECK(cudaFree(d_target));
    CUDA_CHECK(cudaFree(d_grad));
    CUDA_CHECK(cudaFree(d_shard));
    CUDA_CHECK(cudaFree(d_avg));
    CUDA_CHECK(cudaFreeHost(h_pred));
    CUDA_CHECK(cudaFreeHost(h_target));
    CUDA_CHECK(cudaFreeHost(h_avg));
    CUDA_CHECK(cudaStreamDestroy(stream));
    NCCL_CHECK(ncclCommDestroy(comm));
}
