// case: a read-QC pass page-locks its std::vector batch buffer with cudaHostRegister, uploads each batch asynchronously and records an event right after the copy; before the parser overwrites the vector for the next batch it waits on that event (the kernel may still run, but it only reads the device copy), and it unregisters the vector at the end.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(c)                                                                 \
    do {                                                                              \
        cudaError_t e_ = (c);                                                         \
        if (e_ != cudaSuccess) { std::fprintf(stderr, "%s\n", cudaGetErrorString(e_)); std::exit(1); } \
    } while (0)

constexpr int kReadLen = 150;
constexpr int kReadsPerBatch = 1 << 16;
constexpr size_t kBatchBytes = size_t(kReadLen) * kReadsPerBatch;   // ~9.4 MiB of Phred+33 qualities

__global__ void count_low_quality(const char* quals, int reads, int read_len, unsigned long long* low_bases) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= reads) return;
    unsigned long long low = 0;
    for (int i = 0; i < read_len; ++i) low += (quals[static_cast<size_t>(r) * read_len + i] - 33) < 20;
    atomicAdd(low_bases, low);
}

class FastqBatcher {
public:
    explicit FastqBatcher(unsigned seed) : state_(seed) {}
    void next(std::vector<char>& out) {
        for (char& q : out) {
            state_ = state_ * 1664525u + 1013904223u;
            q = static_cast<char>(33 + (state_ >> 27));   // Phred 0..31
        }
    }
private:
    uint32_t state_;
};

int main() {
    std::vector<char> batch(kBatchBytes);
    CUDA_CHECK(cudaHostRegister(batch.data(), batch.size(), cudaHostRegisterDefault));

    char* d_batch = nullptr;
    unsigned long long* d_low = nullptr;
    CUDA_CHECK(cudaMalloc(&d_batch, kBatchBytes));
    CUDA_CHECK(cudaMalloc(&d_low, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d_low, 0, sizeof(unsigned long long)));

    cudaStream_t s;
    cudaEvent_t uploaded;
    CUDA_CHECK(cudaStreamCreate(&s));
    CUDA_CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));

    FastqBatcher parser(2024);
    for (int b = 0; b < 12; ++b) {
        parser.next(batch);
        CUDA_CHECK(cudaMemcpyAsync(d_batch, batch.data(), kBatchBytes, cudaMemcpyHostToDevice, s));
        CUDA_CHECK(cudaEventRecord(uploaded, s));
        count_low_quality<<<(kReadsPerBatch + 255) / 256, 256, 0, s>>>(d_batch, kReadsPerBatch, kReadLen, d_low);
        CUDA_CHECK(cudaEventSynchronize(uploaded));   // the host buffer is free again
    }
    CUDA_CHECK(cudaStreamSynchronize(s));

    unsigned long long low = 0;
    CUDA_CHECK(cudaMemcpy(&low, d_low, sizeof(low), cudaMemcpyDeviceToHost));
    std::printf("bases below Q20: %.2f%%\n", 100.0 * low / (12.0 * kBatchBytes));

    CUDA_CHECK(cudaHostUnregister(batch.data()));
    CUDA_CHECK(cudaEventDestroy(uploaded));
    CUDA_CHECK(cudaStreamDestroy(s));
    cudaFree(d_low);
    cudaFree(d_batch);
    return 0;
}
