// case: a genomics k-mer counter sizes its std::vector of packed reads once, page-locks it with cudaHostRegister before any async upload, synchronizes before refilling it and unregisters it before the vector is destroyed: the async copies are from pinned memory and nothing races.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr size_t kBatchWords = size_t(1) << 22;   // 16 MiB of 2-bit packed bases
constexpr int kTable = 1 << 24;

__global__ void count_kmers(const uint32_t* packed, size_t words, unsigned int* table) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < words) atomicAdd(&table[(packed[i] * 2654435761u) >> 8], 1u);
}

class KmerCounter {
public:
    KmerCounter() : reads_(kBatchWords) {
        CUDA_CHECK(cudaHostRegister(reads_.data(), reads_.size() * sizeof(uint32_t), cudaHostRegisterPortable));
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_reads_, kBatchWords * sizeof(uint32_t)));
        CUDA_CHECK(cudaMalloc(&d_table_, kTable * sizeof(unsigned int)));
        CUDA_CHECK(cudaMemsetAsync(d_table_, 0, kTable * sizeof(unsigned int), stream_));
    }
    ~KmerCounter() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_table_);
        cudaFree(d_reads_);
        cudaStreamDestroy(stream_);
        cudaHostUnregister(reads_.data());
    }

    void add_batch(uint32_t lane_seed) {
        // previous upload finished: add_batch always ends with a synchronize
        for (size_t i = 0; i < reads_.size(); ++i) reads_[i] = uint32_t(i * 0x9e3779b9u) ^ lane_seed;
        CUDA_CHECK(cudaMemcpyAsync(d_reads_, reads_.data(), reads_.size() * sizeof(uint32_t),
                                   cudaMemcpyHostToDevice, stream_));
        count_kmers<<<unsigned((kBatchWords + 255) / 256), 256, 0, stream_>>>(d_reads_, kBatchWords, d_table_);
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    unsigned int bucket(int b) {
        unsigned int v = 0;
        CUDA_CHECK(cudaMemcpyAsync(&v, d_table_ + b, sizeof(v), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return v;
    }

private:
    std::vector<uint32_t> reads_;
    cudaStream_t stream_{};
    uint32_t* d_reads_ = nullptr;
    unsigned int* d_table_ = nullptr;
};

int main() {
    KmerCounter counter;
    for (uint32_t lane = 0; lane < 6; ++lane) counter.add_batch(lane * 77u);
    std::printf("bucket 42 holds %u k-mers\n", counter.bucket(42));
    return 0;
}
