// case: zero-copy with mapped pinned memory: the kernel writes through the device alias from cudaHostGetDevicePointer and the host reads the host pointer after cudaDeviceSynchronize, which is legal
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHECK(e) do { cudaError_t r = (e); if (r != cudaSuccess) { \
    fprintf(stderr, "%s failed: %s\n", #e, cudaGetErrorString(r)); exit(1); } } while (0)

__global__ void count_matches(const int* haystack, int n, int needle, int* hits) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && haystack[i] == needle) atomicAdd(hits, 1);
}

int main() {
    CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    const int n = 1 << 22;

    int* h_hay;
    int* h_hits;
    CHECK(cudaHostAlloc(&h_hay, n * sizeof(int), cudaHostAllocMapped));
    CHECK(cudaHostAlloc(&h_hits, sizeof(int), cudaHostAllocMapped));
    for (int i = 0; i < n; ++i) h_hay[i] = i % 1000;
    *h_hits = 0;

    int *d_hay, *d_hits;
    CHECK(cudaHostGetDevicePointer(&d_hay, h_hay, 0));
    CHECK(cudaHostGetDevicePointer(&d_hits, h_hits, 0));

    count_matches<<<(n + 255) / 256, 256>>>(d_hay, n, 42, d_hits);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    printf("found %d matches (expected %d)\n", *h_hits, n / 1000 + (n % 1000 > 42));

    *h_hits = 0;
    for (int i = 0; i < n; i += 2) h_hay[i] = 42;
    count_matches<<<(n + 255) / 256, 256>>>(d_hay, n, 42, d_hits);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("after rewrite: %d matches\n", *h_hits);

    CHECK(cudaFreeHost(h_hits));
    CHECK(cudaFreeHost(h_hay));
    return 0;
}
