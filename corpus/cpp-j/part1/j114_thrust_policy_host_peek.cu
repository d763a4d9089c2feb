// case: keys uploaded from a std::vector with cudaMemcpyAsync (pageable) into a raw cudaMalloc buffer are sorted with thrust::sort under thrust::cuda::par.on(stream); after synchronizing, the code reads the smallest and largest key by indexing the raw device pointer on the host
// expect: host_deref_device_ptr=1, pageable_async_copy=1
#include <cuda_runtime.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t st_ = (x); if (st_ != cudaSuccess) { printf("%s\n", cudaGetErrorString(st_)); exit(3); } } while (0)

int main() {
    const int n = 1 << 20;
    std::vector<unsigned> keys(n);
    unsigned seed = 12345u;
    for (auto& k : keys) { seed = seed * 1664525u + 1013904223u; k = seed >> 8; }

    unsigned* d_keys = nullptr;
    CK(cudaMalloc(&d_keys, n * sizeof(unsigned)));
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    CK(cudaMemcpyAsync(d_keys, keys.data(), keys.size() * sizeof(unsigned), cudaMemcpyHostToDevice, stream)); // EXPECT: pageable_async_copy
    thrust::device_ptr<unsigned> first(d_keys);
    thrust::sort(thrust::cuda::par.on(stream), first, first + n);
    CK(cudaStreamSynchronize(stream));

    unsigned lo = d_keys[0]; // EXPECT: host_deref_device_ptr
    unsigned hi = d_keys[n - 1];
    printf("key range [%u, %u]\n", lo, hi);

    std::vector<unsigned> sorted(n);
    CK(cudaMemcpy(sorted.data(), d_keys, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    int inversions = 0;
    for (int i = 1; i < n; ++i)
        if (sorted[i - 1] > sorted[i]) ++inversions;
    printf("%d inversions after sort\n", inversions);

    CK(cudaStreamDestroy(stream));
    CK(cudaFree(d_keys));
    return 0;
}
