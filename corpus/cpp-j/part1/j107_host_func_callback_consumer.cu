// case: results are consumed inside a cudaLaunchHostFunc callback enqueued after the download on the same stream, and main synchronizes before freeing, so every host access is stream-ordered
// expect: none
#include <cuda_runtime.h>
#include <atomic>
#include <cstdio>
#include <cstdlib>

#define CUDA_TRY(call) do { cudaError_t err__ = (call); if (err__ != cudaSuccess) { \
    std::fprintf(stderr, "[cuda] %s -> %s\n", #call, cudaGetErrorString(err__));      \
    std::exit(2); } } while (0)

struct BatchResult {
    const float* scores;
    int count;
    int batch_id;
    std::atomic<int>* completed;
};

__global__ void score_kernel(const float* feats, float* scores, int n, int dim) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    float acc = 0.f;
    for (int d = 0; d < dim; ++d) acc += feats[row * dim + d] * (d + 1);
    scores[row] = acc;
}

static void CUDART_CB on_batch_done(void* user) {
    BatchResult* r = static_cast<BatchResult*>(user);
    float best = r->scores[0];
    for (int i = 1; i < r->count; ++i)
        if (r->scores[i] > best) best = r->scores[i];
    std::printf("batch %d best score %.2f\n", r->batch_id, best);
    r->completed->fetch_add(1);
}

int main() {
    const int rows = 1 << 16, dim = 32;
    cudaStream_t s;
    CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    float *h_feats, *h_scores;
    CUDA_TRY(cudaMallocHost(&h_feats, sizeof(float) * rows * dim));
    CUDA_TRY(cudaMallocHost(&h_scores, sizeof(float) * rows));
    for (int i = 0; i < rows * dim; ++i) h_feats[i] = (i % 13) * 0.1f;

    float *d_feats, *d_scores;
    CUDA_TRY(cudaMalloc(&d_feats, sizeof(float) * rows * dim));
    CUDA_TRY(cudaMalloc(&d_scores, sizeof(float) * rows));

    std::atomic<int> completed{0};
    BatchResult result{h_scores, rows, 7, &completed};

    CUDA_TRY(cudaMemcpyAsync(d_feats, h_feats, sizeof(float) * rows * dim, cudaMemcpyHostToDevice, s));
    score_kernel<<<(rows + 127) / 128, 128, 0, s>>>(d_feats, d_scores, rows, dim);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaMemcpyAsync(h_scores, d_scores, sizeof(float) * rows, cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaLaunchHostFunc(s, on_batch_done, &result));

    CUDA_TRY(cudaStreamSynchronize(s));
    std::printf("%d batch(es) completed\n", completed.load());

    CUDA_TRY(cudaFree(d_scores));
    CUDA_TRY(cudaFree(d_feats));
    CUDA_TRY(cudaFreeHost(h_scores));
    CUDA_TRY(cudaFreeHost(h_feats));
    CUDA_TRY(cudaStreamDestroy(s));
    return 0;
}
