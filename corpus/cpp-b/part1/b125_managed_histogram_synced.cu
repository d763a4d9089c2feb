// case: text analytics: a cudaMallocManaged word-length histogram is filled by a kernel and read by the host only after cudaDeviceSynchronize; a __host__ __device__ helper switches on __CUDA_ARCH__ for its intrinsics
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

constexpr int kMaxLen = 32;

__host__ __device__ inline int clamp_len(int len) {
#ifdef __CUDA_ARCH__
    return min(len, kMaxLen - 1);
#else
    return len < kMaxLen - 1 ? len : kMaxLen - 1;
#endif
}

__global__ void word_lengths(const char* text, int n, unsigned int* hist) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    bool start = (text[i] != ' ') && (i == 0 || text[i - 1] == ' ');
    if (!start) return;
    int len = 0;
    while (i + len < n && text[i + len] != ' ') ++len;
    atomicAdd(&hist[clamp_len(len)], 1u);
}

int main() {
    const char* sample = "the quick brown fox jumps over the lazy dog ";
    const int reps = 1 << 16;
    const int sample_len = static_cast<int>(std::strlen(sample));
    const int n = sample_len * reps;

    char* text = nullptr;
    unsigned int* hist = nullptr;
    CUDA_CHECK(cudaMallocManaged(&text, n));
    CUDA_CHECK(cudaMallocManaged(&hist, kMaxLen * sizeof(unsigned int)));
    for (int r = 0; r < reps; ++r) std::memcpy(text + r * sample_len, sample, sample_len);
    std::memset(hist, 0, kMaxLen * sizeof(unsigned int));

    word_lengths<<<(n + 255) / 256, 256>>>(text, n, hist);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    unsigned long long words = 0;
    for (int l = 0; l < kMaxLen; ++l) {
        words += hist[l];
        if (hist[l]) std::printf("len %2d: %u\n", l, hist[l]);
    }
    std::printf("%llu words, longest bucket %d\n", words, clamp_len(40));

    cudaFree(hist);
    cudaFree(text);
    return 0;
}
