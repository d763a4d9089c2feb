// case: analytics query engine keeps its query parameters in a cudaMallocManaged struct; while the scan kernel of the current query (which only uses cudaMalloc'd columns) is still running, the host already writes the next query's parameters into the managed struct
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

struct QueryParams {
    int64_t lo;
    int64_t hi;
    uint32_t column;
    uint32_t limit;
};

__global__ void range_count(const int64_t* col, size_t n, int64_t lo, int64_t hi, unsigned long long* count) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n && col[i] >= lo && col[i] < hi) atomicAdd(count, 1ull);
}

class QueryEngine {
public:
    explicit QueryEngine(size_t rows) : rows_(rows) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_col_, rows * sizeof(int64_t)));
        CUDA_CHECK(cudaMalloc(&d_count_, sizeof(unsigned long long)));
        CUDA_CHECK(cudaMallocHost(&h_count_, sizeof(unsigned long long)));
        CUDA_CHECK(cudaMallocManaged(&params_, sizeof(QueryParams)));
        CUDA_CHECK(cudaMemsetAsync(d_col_, 0, rows * sizeof(int64_t), stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    ~QueryEngine() {
        cudaStreamSynchronize(stream_);
        cudaFree(params_);
        cudaFreeHost(h_count_);
        cudaFree(d_count_);
        cudaFree(d_col_);
        cudaStreamDestroy(stream_);
    }

    void set_query(int64_t lo, int64_t hi) {
        params_->lo = lo;
        params_->hi = hi;
        params_->column = 0;
        params_->limit = 0;
    }

    // launches the current query; the result is collected by finish()
    void launch() {
        CUDA_CHECK(cudaMemsetAsync(d_count_, 0, sizeof(unsigned long long), stream_));
        range_count<<<(unsigned)((rows_ + 255) / 256), 256, 0, stream_>>>(d_col_, rows_, params_->lo, params_->hi, d_count_);
        CUDA_CHECK(cudaMemcpyAsync(h_count_, d_count_, sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream_));
    }

    unsigned long long finish() {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return *h_count_;
    }

    void prefetch_next(int64_t lo, int64_t hi) {
        // overlap: prepare the next query while the current one runs
        params_->lo = lo; // EXPECT: managed_concurrent_access
        params_->hi = hi;
    }

private:
    size_t rows_;
    cudaStream_t stream_{};
    int64_t* d_col_ = nullptr;
    unsigned long long* d_count_ = nullptr;
    unsigned long long* h_count_ = nullptr;
    QueryParams* params_ = nullptr;
};

int main() {
    QueryEngine engine(1u << 24);
    engine.set_query(0, 100);
    for (int q = 0; q < 4; ++q) {
        engine.launch();
        engine.prefetch_next(q * 100, (q + 1) * 100);
        std::printf("query %d: %llu rows\n", q, engine.finish());
    }
    return 0;
}
