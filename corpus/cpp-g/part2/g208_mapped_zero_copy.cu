// case: a telemetry decoder allocates mapped pinned memory (cudaHostAllocMapped), hands the kernel the device alias from cudaHostGetDevicePointer and reads the results only through the host pointer after synchronizing; the device-only scratch buffer is never touched on the host.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

#define TLM_CHECK(expr)                                                            \
    do {                                                                           \
        cudaError_t e_ = (expr);                                                   \
        if (e_ != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e_));   \
    } while (0)

struct Sample {
    uint32_t sensor;
    float value;
};

template <typename T>
struct ZeroCopyBuffer {
    T* host = nullptr;    // what the CPU uses
    T* device = nullptr;  // what kernels use
    size_t count = 0;

    explicit ZeroCopyBuffer(size_t n) : count(n) {
        TLM_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host), n * sizeof(T), cudaHostAllocMapped));
        TLM_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device), host, 0));
    }
    ~ZeroCopyBuffer() { cudaFreeHost(host); }
    ZeroCopyBuffer(const ZeroCopyBuffer&) = delete;
    ZeroCopyBuffer& operator=(const ZeroCopyBuffer&) = delete;
    T& operator[](size_t i) { return host[i]; }
};

__global__ void decode_packets(const uint8_t* raw, size_t packets, float* scratch, Sample* out) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= packets) return;
    const uint8_t* p = raw + i * 8;
    uint32_t sensor = p[0] | (p[1] << 8);
    int32_t fixed = (int32_t)(p[4] | (p[5] << 8) | (p[6] << 16) | (p[7] << 24));
    scratch[i] = fixed / 65536.0f;
    out[i].sensor = sensor;
    out[i].value = scratch[i];
}

int main() {
    TLM_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    const size_t packets = 1 << 16;

    ZeroCopyBuffer<uint8_t> raw(packets * 8);
    ZeroCopyBuffer<Sample> decoded(packets);
    float* d_scratch = nullptr;
    TLM_CHECK(cudaMalloc(&d_scratch, packets * sizeof(float)));

    for (size_t i = 0; i < raw.count; ++i) raw[i] = static_cast<uint8_t>(i * 13);

    cudaStream_t stream;
    TLM_CHECK(cudaStreamCreate(&stream));
    decode_packets<<<(packets + 255) / 256, 256, 0, stream>>>(raw.device, packets, d_scratch,
                                                              decoded.device);
    TLM_CHECK(cudaStreamSynchronize(stream));

    double total = 0.0;
    uint32_t max_sensor = 0;
    for (size_t i = 0; i < packets; ++i) {
        total += decoded[i].value;
        if (decoded[i].sensor > max_sensor) max_sensor = decoded[i].sensor;
    }
    std::printf("%zu samples, %u sensors, mean %.4f (scratch at %p)\n", packets, max_sensor + 1,
                total / packets, static_cast<void*>(d_scratch));

    TLM_CHECK(cudaFree(d_scratch));
    TLM_CHECK(cudaStreamDestroy(stream));
    return 0;
}
