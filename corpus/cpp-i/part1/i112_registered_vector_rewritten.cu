// case: an inference backend page-locks the caller's std::vector with cudaHostRegister, starts an async upload from it and then overwrites the vector with the next request's tokens before the stream is done
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e__ = (x); if (e__ != cudaSuccess) { \
    fprintf(stderr, "%s (%s:%d)\n", cudaGetErrorString(e__), __FILE__, __LINE__); exit(1); } } while (0)

__global__ void embed_lookup(const int32_t* tokens, const float* table, float* out, int ntok, int dim) {
    int t = blockIdx.x;
    if (t >= ntok) return;
    for (int d = threadIdx.x; d < dim; d += blockDim.x) out[t * dim + d] = table[tokens[t] * dim + d];
}

class Backend {
public:
    Backend(int vocab, int dim, int max_tokens) : vocab_(vocab), dim_(dim), max_tokens_(max_tokens) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_table_, (size_t)vocab_ * dim_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_tokens_, max_tokens_ * sizeof(int32_t)));
        CUDA_CHECK(cudaMalloc(&d_out_, (size_t)max_tokens_ * dim_ * sizeof(float)));
        CUDA_CHECK(cudaMemset(d_table_, 0, (size_t)vocab_ * dim_ * sizeof(float)));
    }
    ~Backend() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_out_);
        cudaFree(d_tokens_);
        cudaFree(d_table_);
        cudaStreamDestroy(stream_);
    }
    void write_tokens(const std::vector<int32_t>& tokens) {
        CUDA_CHECK(cudaMemcpyAsync(d_tokens_, tokens.data(), tokens.size() * sizeof(int32_t),
                                   cudaMemcpyHostToDevice, stream_));
    }
    void run(int ntok, std::vector<float>& out) {
        embed_lookup<<<ntok, 128, 0, stream_>>>(d_tokens_, d_table_, d_out_, ntok, dim_);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        CUDA_CHECK(cudaMemcpy(out.data(), d_out_, (size_t)ntok * dim_ * sizeof(float),
                              cudaMemcpyDeviceToHost));
    }
    cudaStream_t stream() const { return stream_; }

private:
    int vocab_, dim_, max_tokens_;
    cudaStream_t stream_ = nullptr;
    float* d_table_ = nullptr;
    int32_t* d_tokens_ = nullptr;
    float* d_out_ = nullptr;
};

int main() {
    const int vocab = 32000, dim = 256, max_tokens = 1 << 16;
    Backend be(vocab, dim, max_tokens);

    std::vector<int32_t> request(max_tokens);
    for (int i = 0; i < max_tokens; ++i) request[i] = (i * 131) % vocab;
    CUDA_CHECK(cudaHostRegister(request.data(), request.size() * sizeof(int32_t),
                                cudaHostRegisterDefault));

    be.write_tokens(request);
    for (int i = 0; i < max_tokens; ++i) request[i] = (i * 17 + 5) % vocab; // EXPECT: missing_sync

    std::vector<float> out((size_t)max_tokens * dim);
    be.run(max_tokens, out);
    printf("out[0] = %f\n", out[0]);

    CUDA_CHECK(cudaStreamSynchronize(be.stream()));
    CUDA_CHECK(cudaHostUnregister(request.data()));
    return 0;
}
