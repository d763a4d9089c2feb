// case: per-iteration scratch for a top-k scoring step comes from the stream-ordered pool on the compute stream; it is released with cudaFreeAsync on a cleanup stream only after that stream waits on an event recorded behind the last kernel using it, and the scores are read after synchronizing the compute stream, so the code is correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(EXIT_FAILURE);                                                  \
        }                                                                        \
    } while (0)

constexpr int kQueries = 512;
constexpr int kDocs = 8192;
constexpr int kDim = 128;

__global__ void dot_scores(const float* q, const float* docs, float* scores, int ndocs, int dim) {
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    int qi = blockIdx.y;
    if (d >= ndocs) return;
    float acc = 0.f;
    for (int k = 0; k < dim; ++k) acc += q[qi * dim + k] * docs[size_t(d) * dim + k];
    scores[size_t(qi) * ndocs + d] = acc;
}

__global__ void row_max(const float* scores, float* best, int ndocs) {
    __shared__ float sh[256];
    const float* row = scores + size_t(blockIdx.x) * ndocs;
    float m = -1e30f;
    for (int i = threadIdx.x; i < ndocs; i += blockDim.x) m = fmaxf(m, row[i]);
    sh[threadIdx.x] = m;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] = fmaxf(sh[threadIdx.x], sh[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) best[blockIdx.x] = sh[0];
}

int main() {
    int dev = 0;
    CUDA_CHECK(cudaSetDevice(dev));
    cudaMemPool_t pool;
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, dev));
    uint64_t keep = UINT64_MAX;
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));

    cudaStream_t s_comp, s_cleanup;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_comp, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_cleanup, cudaStreamNonBlocking));
    cudaEvent_t scratch_idle;
    CUDA_CHECK(cudaEventCreateWithFlags(&scratch_idle, cudaEventDisableTiming));

    const size_t q_bytes = size_t(kQueries) * kDim * sizeof(float);
    const size_t doc_bytes = size_t(kDocs) * kDim * sizeof(float);
    float *h_q, *h_docs, *h_best;
    CUDA_CHECK(cudaMallocHost(&h_q, q_bytes));
    CUDA_CHECK(cudaMallocHost(&h_docs, doc_bytes));
    CUDA_CHECK(cudaMallocHost(&h_best, kQueries * sizeof(float)));
    for (size_t i = 0; i < size_t(kQueries) * kDim; ++i) h_q[i] = float(i % 13) * 0.1f;
    for (size_t i = 0; i < size_t(kDocs) * kDim; ++i) h_docs[i] = float(i % 7) * 0.05f;

    float *d_q, *d_docs, *d_best;
    CUDA_CHECK(cudaMalloc(&d_q, q_bytes));
    CUDA_CHECK(cudaMalloc(&d_docs, doc_bytes));
    CUDA_CHECK(cudaMalloc(&d_best, kQueries * sizeof(float)));
    CUDA_CHECK(cudaMemcpyAsync(d_q, h_q, q_bytes, cudaMemcpyHostToDevice, s_comp));
    CUDA_CHECK(cudaMemcpyAsync(d_docs, h_docs, doc_bytes, cudaMemcpyHostToDevice, s_comp));

    for (int iter = 0; iter < 4; ++iter) {
        float* d_scores = nullptr;
        CUDA_CHECK(cudaMallocAsync(&d_scores, size_t(kQueries) * kDocs * sizeof(float), s_comp));
        dim3 grid((kDocs + 255) / 256, kQueries);
        dot_scores<<<grid, 256, 0, s_comp>>>(d_q, d_docs, d_scores, kDocs, kDim);
        row_max<<<kQueries, 256, 0, s_comp>>>(d_scores, d_best, kDocs);
        CUDA_CHECK(cudaGetLastError());
        // hand the scratch to the cleanup stream only behind the last kernel that reads it
        CUDA_CHECK(cudaEventRecord(scratch_idle, s_comp));
        CUDA_CHECK(cudaStreamWaitEvent(s_cleanup, scratch_idle, 0));
        CUDA_CHECK(cudaFreeAsync(d_scores, s_cleanup));

        CUDA_CHECK(cudaMemcpyAsync(h_best, d_best, kQueries * sizeof(float), cudaMemcpyDeviceToHost, s_comp));
        CUDA_CHECK(cudaStreamSynchronize(s_comp));
        printf("iter %d: best[0] = %.3f best[%d] = %.3f\n", iter, h_best[0], kQueries - 1, h_best[kQueries - 1]);
    }

    CUDA_CHECK(cudaStreamSynchronize(s_cleanup));
    CUDA_CHECK(cudaEventDestroy(scratch_idle));
    CUDA_CHECK(cudaStreamDestroy(s_comp));
    CUDA_CHECK(cudaStreamDestroy(s_cleanup));
    CUDA_CHECK(cudaFree(d_q));
    CUDA_CHECK(cudaFree(d_docs));
    CUDA_CHECK(cudaFree(d_best));
    CUDA_CHECK(cudaFreeHost(h_q));
    CUDA_CHECK(cudaFreeHost(h_docs));
    CUDA_CHECK(cudaFreeHost(h_best));
    return 0;
}
