// case: radix-sort pass frees its cudaMalloc'd per-block histogram scratch with cudaFree right after launching the scatter kernel that reads it, which is safe because cudaFree of cudaMalloc memory synchronizes the device; the sorted keys are read only after a stream synchronize.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <vector>

__global__ void block_histogram(const uint32_t* keys, int n, int shift, uint32_t* hist) {
    __shared__ uint32_t h[16];
    if (threadIdx.x < 16) h[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&h[(keys[i] >> shift) & 15u], 1u);
    __syncthreads();
    if (threadIdx.x < 16) hist[threadIdx.x * gridDim.x + blockIdx.x] = h[threadIdx.x];
}

__global__ void scatter(const uint32_t* keys, uint32_t* out, int n, int shift, const uint32_t* offsets) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t d = (keys[i] >> shift) & 15u;
    uint32_t base = offsets[d * gridDim.x + blockIdx.x];
    uint32_t rank = 0;
    for (int j = blockIdx.x * blockDim.x; j < i; ++j) rank += ((keys[j] >> shift) & 15u) == d;
    out[base + rank] = keys[i];
}

__global__ void exclusive_scan_serial(uint32_t* v, int len) {
    uint32_t run = 0;
    for (int i = 0; i < len; ++i) { uint32_t t = v[i]; v[i] = run; run += t; }
}

struct RadixSorter {
    cudaStream_t stream;
    RadixSorter() { cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking); }
    ~RadixSorter() { cudaStreamDestroy(stream); }

    void pass(uint32_t* d_in, uint32_t* d_out, int n, int shift) {
        int blocks = (n + 255) / 256;
        uint32_t* d_hist = nullptr;
        cudaMalloc(&d_hist, size_t(16) * blocks * sizeof(uint32_t));
        block_histogram<<<blocks, 256, 0, stream>>>(d_in, n, shift, d_hist);
        exclusive_scan_serial<<<1, 1, 0, stream>>>(d_hist, 16 * blocks);
        scatter<<<blocks, 256, 0, stream>>>(d_in, d_out, n, shift, d_hist);
        cudaFree(d_hist);
    }
};

int main() {
    const int n = 1 << 20;
    std::vector<uint32_t> keys(n);
    for (int i = 0; i < n; ++i) keys[i] = uint32_t(i) * 2654435761u;
    uint32_t *d_a = nullptr, *d_b = nullptr, *h_sorted = nullptr;
    cudaMalloc(&d_a, n * sizeof(uint32_t));
    cudaMalloc(&d_b, n * sizeof(uint32_t));
    cudaMallocHost(&h_sorted, n * sizeof(uint32_t));
    cudaMemcpy(d_a, keys.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice);
    cudaDeviceSynchronize();   // the pageable upload may still be in DMA; the sorter's stream is non-blocking
    {
        RadixSorter sorter;
        for (int shift = 0; shift < 32; shift += 4) {
            sorter.pass(d_a, d_b, n, shift);
            std::swap(d_a, d_b);
        }
        cudaMemcpyAsync(h_sorted, d_a, n * sizeof(uint32_t), cudaMemcpyDeviceToHost, sorter.stream);
        cudaStreamSynchronize(sorter.stream);
    }
    bool ok = true;
    for (int i = 1; i < n; ++i) ok &= h_sorted[i - 1] <= h_sorted[i];
    printf("sorted: %s\n", ok ? "yes" : "no");
    cudaFree(d_a); cudaFree(d_b); cudaFreeHost(h_sorted);
    return 0;
}
