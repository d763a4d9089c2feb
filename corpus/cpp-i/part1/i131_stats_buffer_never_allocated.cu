// case: after a refactor moved allocations into a setup function, the optional per-block statistics buffer is still copied back although its cudaMalloc was dropped and the pointer stays nullptr; the kernel itself tests it for null
// expect: unallocated_pointer=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s (%s:%d)\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1); } } while (0)

__global__ void threshold(const float* in, unsigned char* mask, int n, float t, int* block_hits) {
    __shared__ int hits;
    if (threadIdx.x == 0) hits = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        bool on = in[i] > t;
        mask[i] = on;
        if (on) atomicAdd(&hits, 1);
    }
    __syncthreads();
    if (block_hits != nullptr && threadIdx.x == 0) block_hits[blockIdx.x] = hits;
}

struct MaskJob {
    int n = 0;
    int blocks = 0;
    float* d_in = nullptr;
    unsigned char* d_mask = nullptr;
    int* d_block_hits = nullptr;
};

static void setup(MaskJob& job, const std::vector<float>& in) {
    job.n = (int)in.size();
    job.blocks = (job.n + 255) / 256;
    CUDA_CHECK(cudaMalloc(&job.d_in, job.n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&job.d_mask, job.n));
    CUDA_CHECK(cudaMemcpy(job.d_in, in.data(), job.n * sizeof(float), cudaMemcpyHostToDevice));
}

static void teardown(MaskJob& job) {
    CUDA_CHECK(cudaFree(job.d_mask));
    CUDA_CHECK(cudaFree(job.d_in));
}

int main() {
    const int n = 1 << 20;
    std::vector<float> in(n);
    for (int i = 0; i < n; ++i) in[i] = (float)((i * 2654435761u) % 1000) / 1000.f;

    MaskJob job;
    setup(job, in);
    threshold<<<job.blocks, 256>>>(job.d_in, job.d_mask, job.n, 0.9f, job.d_block_hits);
    CUDA_CHECK(cudaGetLastError());

    std::vector<unsigned char> mask(n);
    std::vector<int> hits(job.blocks);
    CUDA_CHECK(cudaMemcpy(mask.data(), job.d_mask, n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hits.data(), job.d_block_hits, job.blocks * sizeof(int), cudaMemcpyDeviceToHost)); // EXPECT: unallocated_pointer

    long on = 0;
    for (unsigned char m : mask) on += m;
    printf("%ld of %d above threshold, first block %d\n", on, n, hits[0]);
    teardown(job);
    return 0;
}
