// case: a search engine's postings decoder picks its staging allocator with #if INDEX_USE_PINNED, which its header defines to 1, so the default build uploads compressed blocks from and downloads doc ids into cudaHostAlloc memory, reading them only after the stream is synchronized: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include "index_build_config.h"

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

__global__ void delta_decode(const uint16_t* deltas, uint32_t* doc_ids) {
    // one thread per block of postings: prefix sum of the deltas
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= kBlocksPerBatch) return;
    uint32_t acc = 0;
    for (int i = 0; i < kPostingsPerBlock; ++i) {
        acc += deltas[b * kPostingsPerBlock + i];
        doc_ids[b * kPostingsPerBlock + i] = acc;
    }
}

template <typename T> T* alloc_staging(size_t n) {
#if INDEX_USE_PINNED
    T* p = nullptr;
    CUDA_CHECK(cudaHostAlloc(&p, n * sizeof(T), cudaHostAllocDefault));
    return p;
#else
    return static_cast<T*>(std::malloc(n * sizeof(T)));
#endif
}

template <typename T> void free_staging(T* p) {
#if INDEX_USE_PINNED
    cudaFreeHost(p);
#else
    std::free(p);
#endif
}

class PostingsDecoder {
public:
    PostingsDecoder()
        : h_deltas_(alloc_staging<uint16_t>(kBatchPostings)), h_ids_(alloc_staging<uint32_t>(kBatchPostings)) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_deltas_, kBatchPostings * sizeof(uint16_t)));
        CUDA_CHECK(cudaMalloc(&d_ids_, kBatchPostings * sizeof(uint32_t)));
    }
    ~PostingsDecoder() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_ids_);
        cudaFree(d_deltas_);
        cudaStreamDestroy(stream_);
        free_staging(h_ids_);
        free_staging(h_deltas_);
    }

    uint64_t decode_batch(uint32_t term) {
        for (size_t i = 0; i < kBatchPostings; ++i) h_deltas_[i] = uint16_t(1 + (i * 7 + term) % 31);
        CUDA_CHECK(cudaMemcpyAsync(d_deltas_, h_deltas_, kBatchPostings * sizeof(uint16_t),
                                   cudaMemcpyHostToDevice, stream_));
        delta_decode<<<(kBlocksPerBatch + 127) / 128, 128, 0, stream_>>>(d_deltas_, d_ids_);
        CUDA_CHECK(cudaMemcpyAsync(h_ids_, d_ids_, kBatchPostings * sizeof(uint32_t),
                                   cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        uint64_t last_ids = 0;
        for (int b = 0; b < kBlocksPerBatch; ++b) last_ids += h_ids_[b * kPostingsPerBlock + kPostingsPerBlock - 1];
        return last_ids;
    }

private:
    uint16_t* h_deltas_;
    uint32_t* h_ids_;
    cudaStream_t stream_{};
    uint16_t* d_deltas_ = nullptr;
    uint32_t* d_ids_ = nullptr;
};

int main() {
    PostingsDecoder dec;
    for (uint32_t term = 0; term < 5; ++term)
        std::printf("term %u: checksum %llu\n", term, (unsigned long long)dec.decode_batch(term));
    return 0;
}
