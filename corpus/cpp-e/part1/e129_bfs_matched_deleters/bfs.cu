// case: A BFS over a synthetic graph pairs every allocation with its own release: unique_ptr deleters (cudaFree for device and managed, cudaFreeHost for cudaHostAlloc), cudaMallocAsync with cudaFreeAsync, and a malloc'd edge list registered, unregistered by its guard, then free()d.
// expect: none
#include "cuda_memory.h"
#include <cstring>
#include <utility>

constexpr int kVertices = 1 << 20;
constexpr int kDegree = 4;

__global__ void expand(const int* edges, const int* frontier, int frontier_len, int* dist, int level,
                       int* next, int* next_len)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= frontier_len) return;
    int v = frontier[t];
    for (int e = 0; e < kDegree; ++e) {
        int w = edges[v * kDegree + e];
        if (atomicCAS(&dist[w], -1, level + 1) == -1) next[atomicAdd(next_len, 1)] = w;
    }
}

int main()
{
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    int* edges_host = static_cast<int*>(std::malloc(kVertices * kDegree * sizeof(int)));
    for (int v = 0; v < kVertices; ++v)
        for (int e = 0; e < kDegree; ++e) edges_host[v * kDegree + e] = (int)((v * 31L + e * 7919L + 1) % kVertices);

    auto dist = gpu::make_device<int>(kVertices);
    auto frontier_len = gpu::make_managed<int>(2);
    auto dist_host = gpu::make_pinned<int>(kVertices);
    int* d_edges = nullptr;
    int *d_front = nullptr, *d_next = nullptr;
    CUDA_CHECK(cudaMallocAsync(&d_edges, kVertices * kDegree * sizeof(int), s));
    CUDA_CHECK(cudaMallocAsync(&d_front, kVertices * sizeof(int), s));
    CUDA_CHECK(cudaMallocAsync(&d_next, kVertices * sizeof(int), s));
    {
        gpu::HostRegistration reg(edges_host, kVertices * kDegree * sizeof(int));
        CUDA_CHECK(cudaMemcpyAsync(d_edges, edges_host, kVertices * kDegree * sizeof(int), cudaMemcpyHostToDevice, s));
        CUDA_CHECK(cudaMemsetAsync(dist.get(), 0xff, kVertices * sizeof(int), s));
        CUDA_CHECK(cudaMemsetAsync(dist.get(), 0, sizeof(int), s));
        CUDA_CHECK(cudaMemsetAsync(d_front, 0, sizeof(int), s));
        CUDA_CHECK(cudaStreamSynchronize(s)); // the registered source has been read
    }
    std::free(edges_host);

    frontier_len[0] = 1;
    int level = 0;
    while (frontier_len[0] > 0 && level < 64) {
        frontier_len[1] = 0;
        expand<<<(frontier_len[0] + 255) / 256, 256, 0, s>>>(d_edges, d_front, frontier_len[0], dist.get(), level,
                                                           d_next, frontier_len.get() + 1);
        CUDA_CHECK(cudaStreamSynchronize(s));
        frontier_len[0] = frontier_len[1];
        std::swap(d_front, d_next);
        ++level;
    }

    CUDA_CHECK(cudaMemcpyAsync(dist_host.get(), dist.get(), kVertices * sizeof(int), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaFreeAsync(d_next, s));
    CUDA_CHECK(cudaFreeAsync(d_front, s));
    CUDA_CHECK(cudaFreeAsync(d_edges, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    long reached = 0;
    for (int v = 0; v < kVertices; ++v) reached += dist_host[v] >= 0;
    std::printf("BFS reached %ld vertices in %d levels\n", reached, level);

    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
