// case: the host overlaps CPU-side work with a GPU histogram and polls cudaEventQuery until the event recorded after the pinned download reports completion before reading the result; the polling loop is the wait
// expect: none
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#define CUDA_OK(call)                                                        \
    do {                                                                     \
        cudaError_t e_ = (call);                                             \
        if (e_ != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,           \
                         cudaGetErrorString(e_));                            \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

__global__ void byte_histogram(const unsigned char* in, size_t n, unsigned* bins) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (; i < n; i += stride) atomicAdd(&bins[in[i]], 1u);
}

static unsigned long long cpu_checksum(const unsigned char* p, size_t n, size_t from, size_t count) {
    unsigned long long h = 1469598103934665603ull;
    for (size_t i = from; i < from + count && i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

int main() {
    const size_t n = size_t(256) << 20;
    unsigned char* h_in;
    unsigned* h_bins;
    CUDA_OK(cudaMallocHost(&h_in, n));
    CUDA_OK(cudaMallocHost(&h_bins, 256 * sizeof(unsigned)));
    for (size_t i = 0; i < n; ++i) h_in[i] = static_cast<unsigned char>((i * 131) >> 3);

    unsigned char* d_in;
    unsigned* d_bins;
    CUDA_OK(cudaMalloc(&d_in, n));
    CUDA_OK(cudaMalloc(&d_bins, 256 * sizeof(unsigned)));

    cudaStream_t s;
    cudaEvent_t done;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_OK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));

    CUDA_OK(cudaMemsetAsync(d_bins, 0, 256 * sizeof(unsigned), s));
    CUDA_OK(cudaMemcpyAsync(d_in, h_in, n, cudaMemcpyHostToDevice, s));
    byte_histogram<<<1024, 256, 0, s>>>(d_in, n, d_bins);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpyAsync(h_bins, d_bins, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaEventRecord(done, s));

    size_t cursor = 0;
    unsigned long long digest = 0;
    cudaError_t q;
    while ((q = cudaEventQuery(done)) == cudaErrorNotReady) {
        digest ^= cpu_checksum(h_in, n, cursor, 1 << 16);
        cursor += 1 << 16;
        if (cursor >= n) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    CUDA_OK(q);

    unsigned long long total = 0;
    for (int b = 0; b < 256; ++b) total += h_bins[b];
    std::printf("counted %llu bytes (digest %llx)\n", total, digest);

    CUDA_OK(cudaEventDestroy(done));
    CUDA_OK(cudaStreamDestroy(s));
    CUDA_OK(cudaFree(d_bins));
    CUDA_OK(cudaFree(d_in));
    CUDA_OK(cudaFreeHost(h_bins));
    CUDA_OK(cudaFreeHost(h_in));
    return 0;
}
