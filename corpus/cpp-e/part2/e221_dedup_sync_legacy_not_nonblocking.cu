// case: a storage deduplication service fingerprints chunks on a cudaStreamNonBlocking stream, downloads the fingerprints into pinned memory on that stream, but then waits with cudaStreamSynchronize(0), which waits for the legacy default stream only, before reading them.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unordered_set>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

// Kept for debug builds that want the engine on the default stream.
#ifdef DEDUP_LEGACY_STREAM
#define DEDUP_STREAM_FLAGS cudaStreamDefault
#else
#define DEDUP_STREAM_FLAGS cudaStreamNonBlocking
#endif

constexpr int kChunks = 1 << 16;
constexpr int kChunkWords = 1024;

__global__ void fingerprint(const uint32_t* data, uint64_t* fp) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= kChunks) return;
    uint64_t h = 1469598103934665603ull;
    for (int w = 0; w < kChunkWords; w += 64) h = (h ^ data[size_t(c) * kChunkWords + w]) * 1099511628211ull;
    fp[c] = h;
}

class DedupEngine {
public:
    DedupEngine() {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, DEDUP_STREAM_FLAGS));
        CUDA_CHECK(cudaMalloc(&d_data_, size_t(kChunks) * kChunkWords * sizeof(uint32_t)));
        CUDA_CHECK(cudaMalloc(&d_fp_, kChunks * sizeof(uint64_t)));
        CUDA_CHECK(cudaMallocHost(&h_fp_, kChunks * sizeof(uint64_t)));
    }
    ~DedupEngine() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_fp_);
        cudaFree(d_fp_);
        cudaFree(d_data_);
        cudaStreamDestroy(stream_);
    }

    size_t unique_chunks(uint32_t seed) {
        CUDA_CHECK(cudaMemsetAsync(d_data_, int(seed & 0xff), size_t(kChunks) * kChunkWords * sizeof(uint32_t), stream_));
        fingerprint<<<kChunks / 256, 256, 0, stream_>>>(d_data_, d_fp_);
        CUDA_CHECK(cudaMemcpyAsync(h_fp_, d_fp_, kChunks * sizeof(uint64_t), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(0));   // legacy stream: does not wait for stream_
        std::unordered_set<uint64_t> seen;
        seen.reserve(kChunks);
        for (int c = 0; c < kChunks; ++c) seen.insert(h_fp_[c]); // EXPECT: missing_sync
        return seen.size();
    }

private:
    cudaStream_t stream_{};
    uint32_t* d_data_ = nullptr;
    uint64_t* d_fp_ = nullptr;
    uint64_t* h_fp_ = nullptr;
};

int main() {
    DedupEngine engine;
    for (uint32_t s = 0; s < 3; ++s) std::printf("round %u: %zu unique chunks\n", s, engine.unique_chunks(s));
    return 0;
}
