// case: a host-to-device bandwidth benchmark stages its data in a cudaMallocHost buffer that is never released with cudaFreeHost
// expect: device_memory_leak=1
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(x)                                                                   \
    do {                                                                           \
        cudaError_t e = (x);                                                       \
        if (e != cudaSuccess) {                                                    \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e), \
                         __FILE__, __LINE__);                                      \
            std::exit(1);                                                          \
        }                                                                          \
    } while (0)

static const size_t kBytes = 256u << 20;
static const int kReps = 20;

struct Timer {
    cudaEvent_t start, stop;
    Timer() {
        cudaEventCreate(&start);
        cudaEventCreate(&stop);
    }
    ~Timer() {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
    }
    void begin(cudaStream_t s) { cudaEventRecord(start, s); }
    float end(cudaStream_t s) {
        cudaEventRecord(stop, s);
        cudaEventSynchronize(stop);
        float ms = 0.f;
        cudaEventElapsedTime(&ms, start, stop);
        return ms;
    }
};

int main() {
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));

    unsigned char* h_staging = nullptr;
    unsigned char* d_buf = nullptr;
    CHECK(cudaMallocHost(&h_staging, kBytes)); // EXPECT: device_memory_leak
    CHECK(cudaMalloc(&d_buf, kBytes));
    std::memset(h_staging, 0xA5, kBytes);

    Timer t;
    // warm-up
    CHECK(cudaMemcpyAsync(d_buf, h_staging, kBytes, cudaMemcpyHostToDevice, stream));
    CHECK(cudaStreamSynchronize(stream));

    t.begin(stream);
    for (int r = 0; r < kReps; ++r)
        CHECK(cudaMemcpyAsync(d_buf, h_staging, kBytes, cudaMemcpyHostToDevice, stream));
    float ms = t.end(stream);

    double gbps = (double)kBytes * kReps / (ms * 1e-3) / 1e9;
    std::printf("H2D pinned: %.2f GB/s (%d x %zu MiB in %.2f ms)\n", gbps, kReps,
                kBytes >> 20, ms);

    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaFree(d_buf));
    CHECK(cudaStreamDestroy(stream));
    return 0;
}
