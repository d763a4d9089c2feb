// case: a network packet classifier writes per-packet verdicts through the device alias of mapped pinned memory (cudaHostGetDevicePointer) and a managed counter, and after cudaStreamSynchronize the host reads the host-side pointer and the managed counter: both are host-visible memory, no device pointer is dereferenced.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kPackets = 1 << 18;

struct Verdicts {
    uint8_t* host = nullptr;     // what the CPU reads
    uint8_t* device = nullptr;   // what kernels write: same pages, device alias
};

__global__ void classify(const uint32_t* headers, int n, uint8_t* verdict, unsigned int* dropped) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint8_t v = (headers[i] & 0xff) == 0x11 ? 2 : ((headers[i] >> 24) == 10 ? 1 : 0);
    verdict[i] = v;
    if (v == 0) atomicAdd(dropped, 1u);
}

__global__ void synth_headers(uint32_t* h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) h[i] = i * 2654435761u;
}

class Classifier {
public:
    Classifier() {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_headers_, kPackets * sizeof(uint32_t)));
        CUDA_CHECK(cudaHostAlloc(&verdicts_.host, kPackets, cudaHostAllocMapped));
        CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&verdicts_.device), verdicts_.host, 0));
        CUDA_CHECK(cudaMallocManaged(&dropped_, sizeof(unsigned int)));
        *dropped_ = 0;
    }
    ~Classifier() {
        cudaStreamSynchronize(stream_);
        cudaFree(dropped_);
        cudaFreeHost(verdicts_.host);
        cudaFree(d_headers_);
        cudaStreamDestroy(stream_);
    }

    void run_batch() {
        synth_headers<<<kPackets / 256, 256, 0, stream_>>>(d_headers_, kPackets);
        classify<<<kPackets / 256, 256, 0, stream_>>>(d_headers_, kPackets, verdicts_.device, dropped_);
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        int udp = 0;
        for (int i = 0; i < kPackets; ++i) udp += verdicts_.host[i] == 2;
        std::printf("udp %d, dropped so far %u\n", udp, *dropped_);
    }

private:
    cudaStream_t stream_{};
    uint32_t* d_headers_ = nullptr;
    Verdicts verdicts_;
    unsigned int* dropped_ = nullptr;
};

int main() {
    CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    Classifier c;
    for (int b = 0; b < 3; ++b) c.run_batch();
    return 0;
}
