// case: a recommendation model-push service stages new dense weights in write-combined pinned memory (right for the upload), but then checksums the staged bytes by reading them back on the host before uploading
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#define CUDA_CHECK(expr)                                                                  \
    do {                                                                                  \
        cudaError_t e_ = (expr);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            std::fprintf(stderr, "model-push: %s: %s\n", #expr, cudaGetErrorString(e_)); \
            std::exit(3);                                                                 \
        }                                                                                 \
    } while (0)

struct TensorShard {
    std::string name;
    std::vector<float> values;
};

class WeightPusher {
public:
    explicit WeightPusher(size_t max_floats) : cap_(max_floats) {
        CUDA_CHECK(cudaHostAlloc(&staging_, cap_ * sizeof(float), cudaHostAllocWriteCombined));
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    }
    ~WeightPusher() {
        cudaStreamSynchronize(stream_);
        cudaStreamDestroy(stream_);
        cudaFreeHost(staging_);
    }

    // Copies the shard into staging, verifies it against the manifest, uploads it.
    bool push(const TensorShard& shard, float* d_dst, uint32_t expected_crc) {
        const size_t n = shard.values.size();
        if (n > cap_) return false;
        CUDA_CHECK(cudaStreamSynchronize(stream_));       // previous upload done with staging
        std::memcpy(staging_, shard.values.data(), n * sizeof(float));

        // integrity: what will be uploaded is what the manifest promised
        uint32_t crc = 0xFFFFFFFFu;
        const uint8_t* bytes = reinterpret_cast<const uint8_t*>(staging_);
        for (size_t i = 0; i < n * sizeof(float); ++i) {
            crc ^= bytes[i]; // EXPECT: write_combined_host_read
            for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
        if ((crc ^ 0xFFFFFFFFu) != expected_crc && expected_crc != 0) {
            std::fprintf(stderr, "shard %s: checksum mismatch\n", shard.name.c_str());
            return false;
        }
        CUDA_CHECK(cudaMemcpyAsync(d_dst, staging_, n * sizeof(float), cudaMemcpyHostToDevice, stream_));
        return true;
    }

    void finish() { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

private:
    size_t cap_;
    float* staging_ = nullptr;
    cudaStream_t stream_ = nullptr;
};

int main() {
    std::vector<TensorShard> shards;
    for (int l = 0; l < 6; ++l) {
        TensorShard s{"mlp.layer" + std::to_string(l) + ".weight", std::vector<float>(1024 * 512)};
        for (size_t i = 0; i < s.values.size(); ++i) s.values[i] = 0.001f * (float)((i * 37 + l) % 1000);
        shards.push_back(std::move(s));
    }

    float* d_weights = nullptr;
    CUDA_CHECK(cudaMalloc(&d_weights, shards.size() * 1024 * 512 * sizeof(float)));

    WeightPusher pusher(1024 * 512);
    int pushed = 0;
    for (size_t l = 0; l < shards.size(); ++l)
        pushed += pusher.push(shards[l], d_weights + l * 1024 * 512, 0) ? 1 : 0;
    pusher.finish();
    std::printf("pushed %d of %zu shards\n", pushed, shards.size());

    CUDA_CHECK(cudaFree(d_weights));
    return 0;
}
