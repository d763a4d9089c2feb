// case: row softmax computed on a compute stream, read back in chunks on a copy stream that waits on the compute event; the host then waits on the compute event instead of the copy event and sums the pinned output while the chunked D2H copies may still run.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_), \
                    __FILE__, __LINE__);                                          \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

constexpr int kRows = 8192;
constexpr int kCols = 1024;
constexpr int kChunks = 4;
constexpr size_t kElems = size_t(kRows) * kCols;
constexpr size_t kBytes = kElems * sizeof(float);

__global__ void row_softmax(const float* __restrict__ logits, float* __restrict__ probs, int cols) {
    extern __shared__ float red[];
    const float* row = logits + size_t(blockIdx.x) * cols;
    float* out = probs + size_t(blockIdx.x) * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += __expf(row[c] - m);
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    const float inv = 1.f / red[0];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = __expf(row[c] - m) * inv;
}

int main() {
    float *h_logits = nullptr, *h_probs = nullptr;
    float *d_logits = nullptr, *d_probs = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_logits, kBytes));
    CUDA_CHECK(cudaMallocHost(&h_probs, kBytes));
    CUDA_CHECK(cudaMalloc(&d_logits, kBytes));
    CUDA_CHECK(cudaMalloc(&d_probs, kBytes));

    for (size_t i = 0; i < kElems; ++i) h_logits[i] = float((i * 2654435761u) % 1000) * 1e-3f;

    cudaStream_t s_comp, s_copy;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_comp, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_copy, cudaStreamNonBlocking));
    cudaEvent_t ev_start, ev_comp, ev_copy;
    CUDA_CHECK(cudaEventCreate(&ev_start));
    CUDA_CHECK(cudaEventCreate(&ev_comp));
    CUDA_CHECK(cudaEventCreateWithFlags(&ev_copy, cudaEventDisableTiming));

    CUDA_CHECK(cudaEventRecord(ev_start, s_comp));
    CUDA_CHECK(cudaMemcpyAsync(d_logits, h_logits, kBytes, cudaMemcpyHostToDevice, s_comp));
    row_softmax<<<kRows, 256, 256 * sizeof(float), s_comp>>>(d_logits, d_probs, kCols);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(ev_comp, s_comp));

    // readback on its own stream, ordered after the softmax
    CUDA_CHECK(cudaStreamWaitEvent(s_copy, ev_comp, 0));
    const size_t chunk = kElems / kChunks;
    for (int c = 0; c < kChunks; ++c) {
        CUDA_CHECK(cudaMemcpyAsync(h_probs + c * chunk, d_probs + c * chunk, chunk * sizeof(float),
                                   cudaMemcpyDeviceToHost, s_copy));
    }
    CUDA_CHECK(cudaEventRecord(ev_copy, s_copy));

    CUDA_CHECK(cudaEventSynchronize(ev_comp));
    float ms = 0.f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, ev_start, ev_comp));

    double total = 0.0;
    for (size_t i = 0; i < kElems; ++i) {
        total += h_probs[i]; // EXPECT: missing_sync
    }
    printf("softmax %.3f ms, mean row mass %.6f\n", ms, total / kRows);

    CUDA_CHECK(cudaEventSynchronize(ev_copy));
    CUDA_CHECK(cudaEventDestroy(ev_start));
    CUDA_CHECK(cudaEventDestroy(ev_comp));
    CUDA_CHECK(cudaEventDestroy(ev_copy));
    CUDA_CHECK(cudaStreamDestroy(s_comp));
    CUDA_CHECK(cudaStreamDestroy(s_copy));
    CUDA_CHECK(cudaFree(d_logits));
    CUDA_CHECK(cudaFree(d_probs));
    CUDA_CHECK(cudaFreeHost(h_logits));
    CUDA_CHECK(cudaFreeHost(h_probs));
    return 0;
}
