// case: regex-prefilter kernel writes match flags straight into mapped (zero-copy, not write-combined) pinned memory through the pointer from cudaHostGetDevicePointer; the host reads them only after cudaStreamSynchronize and frees with cudaFreeHost.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <string>
#include <vector>

__global__ void prefilter(const char* text, size_t len, const char* needle, int nlen, uint8_t* flags) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i + nlen > len) { if (i < len) flags[i] = 0; return; }
    int k = 0;
    while (k < nlen && text[i + k] == needle[k]) ++k;
    flags[i] = (k == nlen);
}

class ZeroCopyScanner {
public:
    explicit ZeroCopyScanner(size_t capacity) : cap_(capacity) {
        cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
        cudaHostAlloc(reinterpret_cast<void**>(&h_flags_), cap_, cudaHostAllocMapped);
        cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_flags_), h_flags_, 0);
        cudaHostAlloc(reinterpret_cast<void**>(&h_text_), cap_, cudaHostAllocDefault);
        cudaMalloc(&d_text_, cap_);
        cudaMalloc(&d_needle_, 64);
    }
    ~ZeroCopyScanner() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_flags_);
        cudaFreeHost(h_text_);
        cudaFree(d_text_);
        cudaFree(d_needle_);
        cudaStreamDestroy(stream_);
    }

    std::vector<size_t> scan(const std::string& text, const char* needle) {
        size_t len = text.size() < cap_ ? text.size() : cap_;
        int nlen = int(strnlen(needle, 63));
        char pattern[64] = {};
        std::memcpy(pattern, needle, nlen);
        std::memcpy(h_text_, text.data(), len);
        cudaMemcpyAsync(d_text_, h_text_, len, cudaMemcpyHostToDevice, stream_);
        cudaMemcpyAsync(d_needle_, pattern, sizeof(pattern), cudaMemcpyHostToDevice, stream_);
        prefilter<<<unsigned((len + 255) / 256), 256, 0, stream_>>>(d_text_, len, d_needle_, nlen, d_flags_);
        cudaStreamSynchronize(stream_);
        std::vector<size_t> hits;
        for (size_t i = 0; i < len; ++i)
            if (h_flags_[i]) hits.push_back(i);
        return hits;
    }

private:
    size_t cap_;
    cudaStream_t stream_{};
    uint8_t* h_flags_ = nullptr;
    uint8_t* d_flags_ = nullptr;
    char* h_text_ = nullptr;
    char* d_text_ = nullptr;
    char* d_needle_ = nullptr;
};

int main() {
    cudaSetDeviceFlags(cudaDeviceMapHost);
    std::string corpus;
    for (int i = 0; i < 200000; ++i) corpus += (i % 97 == 0) ? "GATTACA" : "ACGT";
    ZeroCopyScanner scanner(corpus.size());
    std::vector<size_t> hits = scanner.scan(corpus, "GATTACA");
    printf("%zu hits, first at %zu\n", hits.size(), hits.empty() ? size_t(0) : hits[0]);
    return 0;
}
