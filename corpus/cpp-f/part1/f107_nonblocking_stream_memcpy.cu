// case: a genomics quality filter runs its kernel on a cudaStreamNonBlocking stream and then reads the pass mask back with a plain cudaMemcpy, whose legacy default stream does not wait for non-blocking streams.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t e__ = (call); if (e__ != cudaSuccess) { \
    fprintf(stderr, "[cuda] %s -> %s\n", #call, cudaGetErrorString(e__)); exit(EXIT_FAILURE); } } while (0)

constexpr int kReadLen = 150;

__global__ void phred_filter(const char* quals, int nreads, int min_mean_q, uint8_t* pass) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nreads) return;
    const char* q = quals + (size_t)r * kReadLen;
    int sum = 0;
    for (int i = 0; i < kReadLen; ++i) sum += q[i] - 33;
    pass[r] = (sum / kReadLen) >= min_mean_q;
}

class QualityFilter {
public:
    explicit QualityFilter(int max_reads) : max_reads_(max_reads) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_quals_, (size_t)max_reads * kReadLen));
        CUDA_CHECK(cudaMalloc(&d_pass_, max_reads));
        CUDA_CHECK(cudaMallocHost(&h_quals_, (size_t)max_reads * kReadLen));
    }
    ~QualityFilter() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_quals_);
        cudaFree(d_pass_);
        cudaFree(d_quals_);
        cudaStreamDestroy(stream_);
    }

    std::vector<uint8_t> run(const std::vector<std::string>& quals, int min_q) {
        const int n = (int)quals.size();
        for (int r = 0; r < n; ++r)
            quals[r].copy(h_quals_ + (size_t)r * kReadLen, kReadLen);
        CUDA_CHECK(cudaMemcpyAsync(d_quals_, h_quals_, (size_t)n * kReadLen,
                                   cudaMemcpyHostToDevice, stream_));
        phred_filter<<<(n + 255) / 256, 256, 0, stream_>>>(d_quals_, n, min_q, d_pass_);

        std::vector<uint8_t> pass(n);
        // legacy-stream copy: does not wait for the kernel on stream_
        CUDA_CHECK(cudaMemcpy(pass.data(), d_pass_, n, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return pass;
    }

private:
    int max_reads_;
    cudaStream_t stream_{};
    char* d_quals_ = nullptr;
    uint8_t* d_pass_ = nullptr;
    char* h_quals_ = nullptr;
};

int main() {
    const int nreads = 200000;
    std::vector<std::string> quals(nreads);
    for (int r = 0; r < nreads; ++r) {
        quals[r].resize(kReadLen);
        for (int i = 0; i < kReadLen; ++i) quals[r][i] = (char)(33 + (r * 13 + i * 7) % 41);
    }
    QualityFilter filter(nreads);
    std::vector<uint8_t> pass = filter.run(quals, 25);
    size_t kept = 0;
    for (uint8_t p : pass) kept += p;
    printf("kept %zu of %d reads\n", kept, nreads);
    return 0;
}
