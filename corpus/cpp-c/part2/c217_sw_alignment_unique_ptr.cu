// case: a Smith-Waterman batch scorer owns its buffers through std::unique_ptr/std::shared_ptr with custom deleters (cudaFreeHost for cudaMallocHost/cudaHostAlloc, cudaFree for cudaMalloc, free for malloc), synchronizes before they go out of scope
// expect: none
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

struct DeviceFree { void operator()(void* p) const noexcept { cudaFree(p); } };
struct HostFree   { void operator()(void* p) const noexcept { cudaFreeHost(p); } };
struct CFree      { void operator()(void* p) const noexcept { std::free(p); } };

template <typename T> using dev_ptr    = std::unique_ptr<T[], DeviceFree>;
template <typename T> using pinned_ptr = std::unique_ptr<T[], HostFree>;
template <typename T> using heap_ptr   = std::unique_ptr<T[], CFree>;

template <typename T> dev_ptr<T> device_alloc(size_t n) {
    T* p = nullptr;
    if (cudaMalloc(&p, n * sizeof(T)) != cudaSuccess) return dev_ptr<T>();
    return dev_ptr<T>(p);
}
template <typename T> pinned_ptr<T> pinned_alloc(size_t n) {
    T* p = nullptr;
    if (cudaMallocHost(&p, n * sizeof(T)) != cudaSuccess) return pinned_ptr<T>();
    return pinned_ptr<T>(p);
}

constexpr int kLen = 128;   // query and target length

__global__ void sw_score(const uint8_t* q, const uint8_t* t, int16_t* best, int pairs) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs) return;
    const uint8_t* a = q + (size_t)p * kLen;
    const uint8_t* b = t + (size_t)p * kLen;
    int16_t H[kLen + 1] = {0};
    int16_t top = 0;
    for (int i = 1; i <= kLen; ++i) {
        int16_t diag = 0, left = 0;
        for (int j = 1; j <= kLen; ++j) {
            int16_t up = H[j];
            int16_t h = max(0, max(diag + (a[i - 1] == b[j - 1] ? 2 : -1), max(up - 2, left - 2)));
            diag = up; H[j] = h; left = h;
            top = max(top, h);
        }
    }
    best[p] = top;
}

int main() {
    const int pairs = 1 << 16;
    const size_t seq_bytes = (size_t)pairs * kLen;

    // reads arrive in a malloc'd buffer from the FASTQ parser
    heap_ptr<uint8_t> parsed(static_cast<uint8_t*>(std::malloc(2 * seq_bytes)));
    for (size_t i = 0; i < 2 * seq_bytes; ++i) parsed[i] = "ACGT"[(i * 1103515245u >> 16) & 3];

    pinned_ptr<uint8_t> h_seqs = pinned_alloc<uint8_t>(2 * seq_bytes);
    int16_t* raw_scores = nullptr;
    cudaHostAlloc(&raw_scores, pairs * sizeof(int16_t), cudaHostAllocPortable);
    std::shared_ptr<int16_t> h_scores(raw_scores, [](int16_t* p) { cudaFreeHost(p); });

    dev_ptr<uint8_t> d_seqs = device_alloc<uint8_t>(2 * seq_bytes);
    dev_ptr<int16_t> d_best = device_alloc<int16_t>(pairs);
    if (!h_seqs || !d_seqs || !d_best || !raw_scores) return 1;

    std::memcpy(h_seqs.get(), parsed.get(), 2 * seq_bytes);

    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaMemcpyAsync(d_seqs.get(), h_seqs.get(), 2 * seq_bytes, cudaMemcpyHostToDevice, s);
    sw_score<<<(pairs + 127) / 128, 128, 0, s>>>(d_seqs.get(), d_seqs.get() + seq_bytes, d_best.get(), pairs);
    cudaMemcpyAsync(h_scores.get(), d_best.get(), pairs * sizeof(int16_t), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);

    long hist[8] = {0};
    for (int p = 0; p < pairs; ++p) hist[std::min<int>(h_scores.get()[p] / 32, 7)]++;
    for (int b = 0; b < 8; ++b) std::printf("score %3d-%3d: %ld\n", b * 32, b * 32 + 31, hist[b]);
    return 0;
}
