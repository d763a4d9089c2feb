// Dense layer with cuBLASLt: D = A * B with a heuristic-chosen algorithm. The workspace is
// allocated from the stream-ordered pool for this call only and returned to it on the
// same stream right after the matmul is queued.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <cuda_runtime.h>
#include <cublasLt.h>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         cudaGetErrorString(err_));                               \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

#define CUBLAS_CHECK(call)                                                        \
    do {                                                                          \
        cublasStatus_t st_ = (call);                                              \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                       \
            std::fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__, \
                         static_cast<int>(st_));                                  \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

constexpr int kM = 4096;   // output features
constexpr int kN = 2048;   // batch
constexpr int kK = 1024;   // input features
constexpr size_t kMaxWorkspace = 32u << 20;

int main() {
    const size_t a_elems = static_cast<size_t>(kM) * kK;
    const size_t b_elems = static_cast<size_t>(kK) * kN;
    const size_t d_elems = static_cast<size_t>(kM) * kN;

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasLtHandle_t lt;
    CUBLAS_CHECK(cublasLtCreate(&lt));

    cublasLtMatmulDesc_t op;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F));
    const cublasOperation_t no_trans = CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &no_trans, sizeof(no_trans)));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &no_trans, sizeof(no_trans)));

    cublasLtMatrixLayout_t a_layout, b_layout, d_layout;
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&a_layout, CUDA_R_32F, kM, kK, kM));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&b_layout, CUDA_R_32F, kK, kN, kK));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&d_layout, CUDA_R_32F, kM, kN, kM));

    cublasLtMatmulPreference_t pref;
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    const size_t max_ws = kMaxWorkspace;
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                      &max_ws, sizeof(max_ws)));
    cublasLtMatmulHeuristicResult_t heuristic{};
    int found = 0;
    CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(lt, op, a_layout, b_layout, d_layout, d_layout, pref,
                                                1, &heuristic, &found));
    if (found == 0) {
        std::fprintf(stderr, "no cuBLASLt algorithm for this shape\n");
        return 1;
    }

    float *h_a, *h_b, *h_d;
    CUDA_CHECK(cudaMallocHost(&h_a, a_elems * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_b, b_elems * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_d, d_elems * sizeof(float)));
    for (size_t i = 0; i < a_elems; ++i) h_a[i] = 0.01f * std::sin(0.37f * static_cast<float>(i % 1543));
    for (size_t i = 0; i < b_elems; ++i) h_b[i] = std::cos(0.11f * static_cast<float>(i % 977));

    float *d_a, *d_b, *d_d;
    CUDA_CHECK(cudaMalloc(&d_a, a_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, b_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_d, d_elems * sizeof(float)));
    CUDA_CHECK(cudaMemcpyAsync(d_a, h_a, a_elems * sizeof(float), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(d_b, h_b, b_elems * sizeof(float), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemsetAsync(d_d, 0, d_elems * sizeof(float), stream));

    void* d_ws = nullptr;
    if (heuristic.workspaceSize > 0)
        CUDA_CHECK(cudaMallocAsync(&d_ws, heuristic.workspaceSize, stream));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasLtMatmul(lt, op, &alpha, d_a, a_layout, d_b, b_layout, &beta,
                                d_d, d_layout, d_d, d_layout, &heuristic.algo,
                                d_ws, heuristic.workspaceSize, stream));
    if (d_ws != nullptr) CUDA_CHECK(cudaFreeAsync(d_ws, stream));

    CUDA_CHECK(cudaMemcpyAsync(h_d, d_d, d_elems * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    double checksum = 0.0;
    for (size_t i = 0; i < d_elems; ++i) checksum += h_d[i];
    std::printf("cublasLt matmul %dx%dx%d checksum %.6e\n", kM, kN, kK, checksum);

    CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(pref));
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(d_layout));
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(b_layout));
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(a_layout));
    CUBLAS_CHECK(cublasLtMatmulDescDestroy(op));
    CUDA_CHECK(cudaFree(d_d));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFreeHost(h_d));
    CUDA_CHECK(cudaFreeHost(h_b));
    CUDA_CHECK(cudaFreeHost(h_a));
    CUBLAS_CHECK(cublasLtDestroy(lt));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
