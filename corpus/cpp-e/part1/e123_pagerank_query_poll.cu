// case: A PageRank iteration overlaps CPU-side bookkeeping with the GPU by polling cudaStreamQuery until it stops returning cudaErrorNotReady, checks the final status, and only then reads the pinned rank vector.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kNodes = 1 << 20;
constexpr int kOutDeg = 4;
constexpr float kDamping = 0.85f;

__global__ void pagerank_step(const int* out_edges, const float* rank, float* next, int n)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    float share = kDamping * rank[v] / kOutDeg;
    for (int e = 0; e < kOutDeg; ++e) atomicAdd(&next[out_edges[v * kOutDeg + e]], share);
}

__global__ void teleport(float* next, int n)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) next[v] += (1.0f - kDamping) / n;
}

static long cpu_side_work(long state) { return state * 6364136223846793005L + 1442695040888963407L; }

int main()
{
    std::vector<int> edges(kNodes * kOutDeg);
    for (int v = 0; v < kNodes; ++v)
        for (int e = 0; e < kOutDeg; ++e) edges[v * kOutDeg + e] = (int)((v * 7919L + e * 104729L) % kNodes);

    int* d_edges;
    float *d_rank, *d_next, *h_rank;
    CUDA_CHECK(cudaMalloc(&d_edges, edges.size() * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_rank, kNodes * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_next, kNodes * sizeof(float)));
    CUDA_CHECK(cudaHostAlloc(&h_rank, kNodes * sizeof(float), cudaHostAllocDefault));
    for (int v = 0; v < kNodes; ++v) h_rank[v] = 1.0f / kNodes;

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemcpy(d_edges, edges.data(), edges.size() * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize()); // the pageable upload is only staged when cudaMemcpy returns
    CUDA_CHECK(cudaMemcpyAsync(d_rank, h_rank, kNodes * sizeof(float), cudaMemcpyHostToDevice, s));

    for (int it = 0; it < 20; ++it) {
        CUDA_CHECK(cudaMemsetAsync(d_next, 0, kNodes * sizeof(float), s));
        pagerank_step<<<kNodes / 256, 256, 0, s>>>(d_edges, d_rank, d_next, kNodes);
        teleport<<<kNodes / 256, 256, 0, s>>>(d_next, kNodes);
        float* t = d_rank; d_rank = d_next; d_next = t;
    }
    CUDA_CHECK(cudaMemcpyAsync(h_rank, d_rank, kNodes * sizeof(float), cudaMemcpyDeviceToHost, s));

    long state = 1;
    long polls = 0;
    cudaError_t st;
    while ((st = cudaStreamQuery(s)) == cudaErrorNotReady) {
        state = cpu_side_work(state);
        ++polls;
    }
    CUDA_CHECK(st);

    int top = 0;
    for (int v = 1; v < kNodes; ++v) if (h_rank[v] > h_rank[top]) top = v;
    std::printf("top node %d rank %g after %ld polls (%ld)\n", top, h_rank[top], polls, state & 1);

    CUDA_CHECK(cudaFreeHost(h_rank));
    CUDA_CHECK(cudaFree(d_next));
    CUDA_CHECK(cudaFree(d_rank));
    CUDA_CHECK(cudaFree(d_edges));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
