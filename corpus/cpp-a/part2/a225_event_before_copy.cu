// case: multi-GPU gather: for each device the "ready" event is recorded before the device-to-host copy of its shard is enqueued, so cudaEventSynchronize on it does not cover the copy and the host reads the pinned shard early
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

__global__ void shard_topk_scores(const float* emb, const float* q, int rows, int dim, float* scores) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.f;
    for (int d = 0; d < dim; ++d) s += emb[(size_t)r * dim + d] * q[d];
    scores[r] = s;
}

struct Shard {
    int device;
    cudaStream_t stream;
    cudaEvent_t ready;
    float* d_emb;
    float* d_query;
    float* d_scores;
    float* h_scores;  // pinned, portable
    int rows;
};

int main() {
    int ndev = 0;
    CUDA_CHECK(cudaGetDeviceCount(&ndev));
    if (ndev == 0) return 0;
    const int rows = 1 << 20, dim = 64;

    std::vector<Shard> shards(ndev);
    for (int g = 0; g < ndev; ++g) {
        Shard& sh = shards[g];
        sh.device = g;
        sh.rows = rows;
        CUDA_CHECK(cudaSetDevice(g));
        CUDA_CHECK(cudaStreamCreateWithFlags(&sh.stream, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&sh.ready, cudaEventDisableTiming));
        CUDA_CHECK(cudaMalloc(&sh.d_emb, (size_t)rows * dim * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&sh.d_query, dim * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&sh.d_scores, rows * sizeof(float)));
        CUDA_CHECK(cudaHostAlloc(&sh.h_scores, rows * sizeof(float), cudaHostAllocPortable));
        CUDA_CHECK(cudaMemsetAsync(sh.d_emb, 0, (size_t)rows * dim * sizeof(float), sh.stream));
        CUDA_CHECK(cudaMemsetAsync(sh.d_query, 0, dim * sizeof(float), sh.stream));
    }

    Shard& s0 = shards[0];
    CUDA_CHECK(cudaSetDevice(s0.device));
    shard_topk_scores<<<(rows + 255) / 256, 256, 0, s0.stream>>>(s0.d_emb, s0.d_query, rows, dim, s0.d_scores);
    CUDA_CHECK(cudaEventRecord(s0.ready, s0.stream));
    CUDA_CHECK(cudaMemcpyAsync(s0.h_scores, s0.d_scores, rows * sizeof(float), cudaMemcpyDeviceToHost, s0.stream));

    CUDA_CHECK(cudaEventSynchronize(s0.ready));
    float best = s0.h_scores[0]; // EXPECT: missing_sync
    for (int r = 1; r < rows; ++r) best = s0.h_scores[r] > best ? s0.h_scores[r] : best;
    std::printf("best score on device 0: %f\n", best);

    for (Shard& sh : shards) {
        CUDA_CHECK(cudaSetDevice(sh.device));
        CUDA_CHECK(cudaStreamSynchronize(sh.stream));
        cudaFreeHost(sh.h_scores);
        cudaFree(sh.d_scores);
        cudaFree(sh.d_query);
        cudaFree(sh.d_emb);
        cudaEventDestroy(sh.ready);
        cudaStreamDestroy(sh.stream);
    }
    return 0;
}
