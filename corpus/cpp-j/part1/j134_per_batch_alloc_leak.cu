// case: a batch loop calls a helper that allocates a temporary device buffer for each batch and frees it only on the success path; when the batch is empty it returns early without releasing the buffer
// expect: device_memory_leak=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void count_valid(const int* ids, int n, int* valid) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && ids[i] >= 0) atomicAdd(valid, 1);
}

static int valid_in_batch(const std::vector<int>& ids, int* d_valid) {
    int* d_ids = nullptr;
    const size_t bytes = ids.size() * sizeof(int);
    CUDA_CHECK(cudaMalloc(&d_ids, bytes > 0 ? bytes : sizeof(int)));
    if (ids.empty())
        return 0; // EXPECT: device_memory_leak
    CUDA_CHECK(cudaMemcpy(d_ids, ids.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_valid, 0, sizeof(int)));
    count_valid<<<(unsigned)((ids.size() + 255) / 256), 256>>>(d_ids, (int)ids.size(), d_valid);
    int h_valid = 0;
    CUDA_CHECK(cudaMemcpy(&h_valid, d_valid, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_ids));
    return h_valid;
}

int main() {
    int* d_valid;
    CUDA_CHECK(cudaMalloc(&d_valid, sizeof(int)));
    long total = 0;
    for (int b = 0; b < 1000; ++b) {
        std::vector<int> ids(b % 10 == 0 ? 0 : 4096 + b);
        for (size_t i = 0; i < ids.size(); ++i) ids[i] = ((int)i % 7 == 0) ? -1 : (int)i;
        total += valid_in_batch(ids, d_valid);
    }
    printf("valid ids: %ld\n", total);
    CUDA_CHECK(cudaFree(d_valid));
    return 0;
}
